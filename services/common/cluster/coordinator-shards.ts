/**
 * Groups to shards, shards to coordinator instances and to partitions of `__consumer_offsets`, and
 * the metadata keys that record who owns what. Pure functions and key builders.
 *
 *   /tide/<cluster>/coordinators/config               {"shardCount": n}, written once (create-if-absent):
 *                                                      every instance uses the stored count
 *   /tide/<cluster>/coordinators/instances/<id>       CoordinatorRecord, under the instance's lease
 *   /tide/<cluster>/coordinators/shards/<n>           CoordinatorRecord of the owner, under its lease;
 *                                                      the key's createRevision is the shard epoch
 *
 * Shard of a group: FNV-1a (32 bit) of the group id's UTF-8 bytes, modulo the shard count.
 * Owner of a shard: rendezvous hashing (the highest rendezvousScore(instance id, shard) among live
 * instances), so an instance joining or leaving moves only the shards it gains or loses.
 * Partition of a shard: shard modulo the offsets topic's partition count.
 */
import { TideError } from '../errors';
import { MetadataKeys } from '../metadata/keys';

export const DEFAULT_SHARD_COUNT = 64;

export interface CoordinatorRecord {
  id: string;
  host: string;
  port: number;
}

export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export function shardOf(groupId: string, shardCount: number): number {
  return fnv1a(groupId) % shardCount;
}

/** murmur3's 32-bit finalizer: every input bit affects every output bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The rendezvous score of an instance for a shard. */
export function rendezvousScore(instanceId: string, shard: number): number {
  return fmix32(fnv1a(instanceId) ^ Math.imul(shard + 1, 0x9e3779b1));
}

/** The instance that should own `shard` among `instanceIds` (undefined when there is none). */
export function desiredOwner(shard: number, instanceIds: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const id of instanceIds) {
    const score = rendezvousScore(id, shard);
    if (score > bestScore || (score === bestScore && best !== undefined && id < best)) {
      best = id;
      bestScore = score;
    }
  }
  return best;
}

export function partitionOfShard(shard: number, partitionCount: number): number {
  return shard % partitionCount;
}

/** The coordinator keys of one cluster. */
export class CoordinatorKeys {
  readonly prefix: string;

  constructor(clusterName: string) {
    this.prefix = new MetadataKeys(clusterName).coordinatorsPrefix;
  }

  get config(): string {
    return `${this.prefix}config`;
  }
  get instancesPrefix(): string {
    return `${this.prefix}instances/`;
  }
  get shardsPrefix(): string {
    return `${this.prefix}shards/`;
  }
  instance(id: string): string {
    return `${this.instancesPrefix}${id}`;
  }
  shard(n: number): string {
    return `${this.shardsPrefix}${n}`;
  }
  /** The shard number of a shard key, or undefined. */
  parseShard(key: string): number | undefined {
    if (!key.startsWith(this.shardsPrefix)) return undefined;
    const rest = key.slice(this.shardsPrefix.length);
    return /^(0|[1-9]\d{0,5})$/.test(rest) ? Number(rest) : undefined;
  }
  /** The instance id of an instance key, or undefined. */
  parseInstance(key: string): string | undefined {
    if (!key.startsWith(this.instancesPrefix)) return undefined;
    const rest = key.slice(this.instancesPrefix.length);
    return rest.length > 0 && !rest.includes('/') ? rest : undefined;
  }
}

export const COORDINATOR_ID = /^[a-zA-Z0-9._-]{1,128}$/;

export function encodeCoordinatorRecord(record: CoordinatorRecord): string {
  return JSON.stringify({ id: record.id, host: record.host, port: record.port });
}

/** Decodes an instance or shard value; undefined (never a throw) for a malformed one. */
export function decodeCoordinatorRecord(value: Buffer | string): CoordinatorRecord | undefined {
  try {
    const o = JSON.parse(
      typeof value === 'string' ? value : value.toString('utf8'),
    ) as Partial<CoordinatorRecord>;
    if (typeof o.id !== 'string' || typeof o.host !== 'string' || typeof o.port !== 'number')
      return undefined;
    return { id: o.id, host: o.host, port: o.port };
  } catch {
    return undefined;
  }
}

export function decodeShardCount(value: Buffer | string): number {
  try {
    const o = JSON.parse(typeof value === 'string' ? value : value.toString('utf8')) as {
      shardCount?: unknown;
    };
    if (
      typeof o.shardCount === 'number' &&
      Number.isInteger(o.shardCount) &&
      o.shardCount >= 1 &&
      o.shardCount <= 4096
    )
      return o.shardCount;
  } catch {
    // fall through
  }
  throw new TideError('UNKNOWN', `malformed coordinator config: ${String(value).slice(0, 80)}`, {
    retriable: false,
  });
}

export function encodeShardCount(shardCount: number): string {
  return JSON.stringify({ shardCount });
}

export function validateGroupId(groupId: unknown, field = 'group_id'): string {
  if (typeof groupId !== 'string' || groupId.length === 0)
    throw new TideError('INVALID_REQUEST', `${field} is required (the consumer group's name)`);
  if (Buffer.byteLength(groupId, 'utf8') > 255)
    throw new TideError('INVALID_REQUEST', `${field} is longer than 255 bytes`);
  if (/[\u0000-\u001f]/.test(groupId))
    throw new TideError('INVALID_REQUEST', `${field} ${JSON.stringify(groupId)} contains control characters`);
  return groupId;
}
