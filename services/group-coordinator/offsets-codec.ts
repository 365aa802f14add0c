/**
 * The records of the internal topic `__consumer_offsets`: committed offsets, group metadata and
 * shard markers. The topic is compacted, so every record's key says what it is about, and the
 * last record per key is the truth (a null value deletes it).
 *
 * Byte format (big-endian; `string` = int16 length + UTF-8 bytes; `blob` = int32 length + bytes):
 *
 *   key   := int16 type, then
 *            type 0 (offset commit):          string group, string topic, int32 partition
 *            type 1 (group metadata):         string group
 *            type 2 (shard marker, legacy):   int32 shard                (read, no longer written)
 *            type 3 (shard marker):           int32 shard, int64 coordinatorEpoch
 *   value := int16 version (0), int64 coordinatorEpoch, then
 *            type 0: int64 offset, int64 commitTimestampMs, blob metadata (UTF-8)
 *            type 1: blob GroupSnapshot as JSON (partitions as {"topic": [p, ...]}, user data base64,
 *                    emptySinceMs once the last member left)
 *            type 2, 3: int64 timestampMs
 *
 * `coordinatorEpoch` is the shard epoch of the coordinator that wrote the record (the etcd
 * revision at which it took the shard). A new owner writes a shard marker before it replays the
 * partition; on replay, a record older than the newest marker of its shard seen so far came from a
 * deposed owner (a zombie write) and is ignored.
 *
 * Why a marker's key holds its epoch (type 3): a marker must outlive compaction for as long as any
 * zombie write behind it does. With one key per shard (type 2, written by earlier versions) the
 * cleaner keeps only the newest marker, so in `M(e1) .. W(e0) .. M(e2)` it removes M(e1) and a
 * later replay meets W(e0) before any newer marker and accepts it. One key per (shard, epoch)
 * means no marker is ever superseded, so every marker is kept: one small record (39 bytes)
 * per ownership change of a shard, bounded by how often shards move, not by traffic. A new key
 * type rather than a longer type-2 key, so a reader that predates it skips it as `unknown` (as
 * below) instead of rejecting a type-2 key with trailing bytes as corrupt.
 *
 * Decoding never throws on well-framed data it does not know (a newer record type or version):
 * it answers `unknown`, and the loader skips it. Bad framing throws CORRUPT_MESSAGE naming the field.
 */
import { AssertionError } from '../common/assert';
import { TideError } from '../common/errors';
import type { GroupSnapshot, MemberSnapshot } from './group';
import { parseTpKey, tpKey } from './partitions';

export const OFFSETS_TOPIC = '__consumer_offsets';

export const KEY_OFFSET = 0;
export const KEY_GROUP = 1;
/** Shard marker keyed by shard only, as written by earlier versions (compaction keeps the newest). */
export const KEY_SHARD_MARKER_LEGACY = 2;
/** Shard marker keyed by shard and epoch: never superseded, so compaction keeps every one. */
export const KEY_SHARD_MARKER = 3;
export const VALUE_VERSION = 0;

export type OffsetsRecord =
  | {
      type: 'offset';
      group: string;
      topic: string;
      partition: number;
      /** Null for a tombstone. */
      value: { coordinatorEpoch: number; offset: number; commitTimestampMs: number; metadata: string } | null;
    }
  | { type: 'group'; group: string; value: { coordinatorEpoch: number; snapshot: GroupSnapshot } | null }
  | { type: 'marker'; shard: number; value: { coordinatorEpoch: number; timestampMs: number } | null }
  | { type: 'unknown'; why: string };

// ---------------------------------------------------------------- writing

export class Writer {
  private readonly parts: Buffer[] = [];

  int16(n: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(n);
    this.parts.push(b);
    return this;
  }

  int32(n: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    this.parts.push(b);
    return this;
  }

  int64(n: number): this {
    if (!Number.isSafeInteger(n)) throw new AssertionError(`int64 field ${n} is not a safe integer`);
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(BigInt(n));
    this.parts.push(b);
    return this;
  }

  string(s: string): this {
    const bytes = Buffer.from(s, 'utf8');
    if (bytes.length > 0x7fff)
      throw new AssertionError(`string of ${bytes.length} bytes is too long for a key`);
    return this.int16(bytes.length).raw(bytes);
  }

  blob(bytes: Buffer): this {
    return this.int32(bytes.length).raw(bytes);
  }

  raw(bytes: Buffer): this {
    this.parts.push(bytes);
    return this;
  }

  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export function offsetKey(group: string, topic: string, partition: number): Buffer {
  return new Writer().int16(KEY_OFFSET).string(group).string(topic).int32(partition).done();
}

export function groupKey(group: string): Buffer {
  return new Writer().int16(KEY_GROUP).string(group).done();
}

/** The key of shard `shard`'s marker for `coordinatorEpoch`: unique per epoch (see the header). */
export function markerKey(shard: number, coordinatorEpoch: number): Buffer {
  return new Writer().int16(KEY_SHARD_MARKER).int32(shard).int64(coordinatorEpoch).done();
}

export function offsetValue(value: {
  coordinatorEpoch: number;
  offset: number;
  commitTimestampMs: number;
  metadata: string;
}): Buffer {
  return new Writer()
    .int16(VALUE_VERSION)
    .int64(value.coordinatorEpoch)
    .int64(value.offset)
    .int64(value.commitTimestampMs)
    .blob(Buffer.from(value.metadata, 'utf8'))
    .done();
}

export function groupValue(coordinatorEpoch: number, snapshot: GroupSnapshot): Buffer {
  const json = JSON.stringify({
    ...snapshot,
    members: snapshot.members.map((m) => ({
      ...m,
      owned: grouped(m.owned),
      revoking: grouped(m.revoking),
      userData: m.userData?.toString('base64'),
    })),
  });
  return new Writer().int16(VALUE_VERSION).int64(coordinatorEpoch).blob(Buffer.from(json, 'utf8')).done();
}

export function markerValue(coordinatorEpoch: number, timestampMs: number): Buffer {
  return new Writer().int16(VALUE_VERSION).int64(coordinatorEpoch).int64(timestampMs).done();
}

function grouped(keys: readonly string[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const key of keys) {
    const { topic, partition } = parseTpKey(key);
    (out[topic] ??= []).push(partition);
  }
  return out;
}

// ---------------------------------------------------------------- reading

export class Reader {
  private at = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly what: string,
  ) {}

  private need(n: number, field: string): void {
    if (this.at + n > this.bytes.length)
      throw corrupt(`${this.what}: ${field} needs ${n} bytes at ${this.at}, record has ${this.bytes.length}`);
  }

  int16(field: string): number {
    this.need(2, field);
    const v = this.bytes.readInt16BE(this.at);
    this.at += 2;
    return v;
  }

  int32(field: string): number {
    this.need(4, field);
    const v = this.bytes.readInt32BE(this.at);
    this.at += 4;
    return v;
  }

  int64(field: string): number {
    this.need(8, field);
    const v = Number(this.bytes.readBigInt64BE(this.at));
    this.at += 8;
    return v;
  }

  string(field: string): string {
    const length = this.int16(`${field} length`);
    if (length < 0) throw corrupt(`${this.what}: ${field} length ${length}`);
    this.need(length, field);
    const s = this.bytes.toString('utf8', this.at, this.at + length);
    this.at += length;
    return s;
  }

  blob(field: string): Buffer {
    const length = this.int32(`${field} length`);
    if (length < 0) throw corrupt(`${this.what}: ${field} length ${length}`);
    this.need(length, field);
    const b = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return b;
  }

  end(): void {
    if (this.at !== this.bytes.length)
      throw corrupt(`${this.what}: ${this.bytes.length - this.at} trailing byte(s)`);
  }
}

function corrupt(message: string): TideError {
  return new TideError('CORRUPT_MESSAGE', `malformed ${OFFSETS_TOPIC} record: ${message}`, {
    retriable: false,
  });
}

/** Decodes one record of the offsets topic. */
export function decodeOffsetsRecord(key: Buffer | null, value: Buffer | null): OffsetsRecord {
  if (!key) throw corrupt('a record without a key');
  const k = new Reader(key, 'key');
  const type = k.int16('type');
  const v = value ? new Reader(value, 'value') : undefined;
  const version = v?.int16('version');
  if (version !== undefined && version !== VALUE_VERSION)
    return { type: 'unknown', why: `value version ${version} (type ${type})` };
  const epoch = () => v!.int64('coordinatorEpoch');
  switch (type) {
    case KEY_OFFSET: {
      const group = k.string('group');
      const topic = k.string('topic');
      const partition = k.int32('partition');
      k.end();
      if (!v) return { type: 'offset', group, topic, partition, value: null };
      const coordinatorEpoch = epoch();
      const offset = v.int64('offset');
      const commitTimestampMs = v.int64('commitTimestampMs');
      const metadata = v.blob('metadata').toString('utf8');
      v.end();
      return {
        type: 'offset',
        group,
        topic,
        partition,
        value: { coordinatorEpoch, offset, commitTimestampMs, metadata },
      };
    }
    case KEY_GROUP: {
      const group = k.string('group');
      k.end();
      if (!v) return { type: 'group', group, value: null };
      const coordinatorEpoch = epoch();
      const snapshot = parseSnapshot(group, v.blob('snapshot').toString('utf8'));
      v.end();
      return { type: 'group', group, value: { coordinatorEpoch, snapshot } };
    }
    case KEY_SHARD_MARKER_LEGACY:
    case KEY_SHARD_MARKER: {
      const shard = k.int32('shard');
      const keyEpoch = type === KEY_SHARD_MARKER ? k.int64('coordinatorEpoch') : undefined;
      k.end();
      if (!v) return { type: 'marker', shard, value: null };
      const coordinatorEpoch = epoch();
      const timestampMs = v.int64('timestampMs');
      v.end();
      if (keyEpoch !== undefined && keyEpoch !== coordinatorEpoch)
        throw corrupt(`shard ${shard} marker: key epoch ${keyEpoch}, value epoch ${coordinatorEpoch}`);
      return { type: 'marker', shard, value: { coordinatorEpoch, timestampMs } };
    }
    default:
      return { type: 'unknown', why: `key type ${type}` };
  }
}

function parseSnapshot(group: string, json: string): GroupSnapshot {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw corrupt(`group ${group}: metadata is not JSON`);
  }
  const o = raw as {
    protocol?: unknown;
    generation?: unknown;
    assignor?: unknown;
    members?: unknown;
    emptySinceMs?: unknown;
  };
  const int = (x: unknown, what: string): number => {
    if (typeof x !== 'number' || !Number.isSafeInteger(x))
      throw corrupt(`group ${group}: ${what} is not an integer`);
    return x;
  };
  const str = (x: unknown, what: string): string => {
    if (typeof x !== 'string') throw corrupt(`group ${group}: ${what} is not a string`);
    return x;
  };
  const keys = (x: unknown, what: string): string[] => {
    if (typeof x !== 'object' || x === null || Array.isArray(x))
      throw corrupt(`group ${group}: ${what} is not an object`);
    return Object.entries(x as Record<string, unknown>).flatMap(([topic, ps]) => {
      if (!Array.isArray(ps)) throw corrupt(`group ${group}: ${what}.${topic} is not a list`);
      return ps.map((p) => tpKey(topic, int(p, `${what}.${topic}[]`)));
    });
  };
  if (!Array.isArray(o.members)) throw corrupt(`group ${group}: members is not a list`);
  const members: MemberSnapshot[] = (o.members as Record<string, unknown>[]).map((m, i) => ({
    memberId: str(m.memberId, `members[${i}].memberId`),
    instanceId: str(m.instanceId, `members[${i}].instanceId`),
    clientId: str(m.clientId, `members[${i}].clientId`),
    clientHost: str(m.clientHost, `members[${i}].clientHost`),
    topics: (Array.isArray(m.topics) ? m.topics : []).map((t: unknown) => str(t, `members[${i}].topics[]`)),
    sessionTimeoutMs: int(m.sessionTimeoutMs, `members[${i}].sessionTimeoutMs`),
    rebalanceTimeoutMs: int(m.rebalanceTimeoutMs, `members[${i}].rebalanceTimeoutMs`),
    epoch: int(m.epoch, `members[${i}].epoch`),
    fenceEpoch: int(m.fenceEpoch, `members[${i}].fenceEpoch`),
    owned: keys(m.owned, `members[${i}].owned`),
    revoking: keys(m.revoking, `members[${i}].revoking`),
    // Absent in snapshots written before user data was kept.
    ...(m.userData === undefined
      ? {}
      : { userData: Buffer.from(str(m.userData, `members[${i}].userData`), 'base64') }),
  }));
  return {
    groupId: group,
    protocol: o.protocol === 'classic' ? 'classic' : 'consumer',
    generation: int(o.generation, 'generation'),
    assignor: str(o.assignor, 'assignor'),
    members,
    // Absent while the group has members, and in snapshots written before it was kept.
    ...(o.emptySinceMs === undefined ? {} : { emptySinceMs: int(o.emptySinceMs, 'emptySinceMs') }),
  };
}
