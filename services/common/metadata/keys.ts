/**
 * The metadata key space of one cluster and the typed values stored there. Every key lives under
 * `/tide/<cluster>/` so clusters can share one etcd:
 *
 *   /tide/<cluster>/cluster-id               the cluster id (plain UTF-8 string)
 *   /tide/<cluster>/controller               ControllerRecord (JSON), held under the controller's lease
 *   /tide/<cluster>/brokers/<id>             BrokerRecord (JSON), held under the broker's lease
 *   /tide/<cluster>/topics/<topic>           TopicRecord (JSON)
 *   /tide/<cluster>/partitions/<topic>/<p>   PartitionState (JSON), p = 0..partitions-1
 *   /tide/<cluster>/producer-ids             ProducerIdBlockRecord (JSON): the next unallocated id
 *   /tide/<cluster>/coordinators/...         the group coordinators' shards and instances (keys and
 *                                            values in services/common/cluster/coordinator-shards.ts)
 *   /tide/<cluster>/applications/<app>/<key> application metadata (services/common/app-metadata/)
 *
 * Values are JSON objects. Decoders validate every field and throw a TideError naming the key and
 * the field instead of letting a bad value crash a watcher; unknown fields are ignored, so a newer
 * writer may add fields. Encoders assert their input is valid (writing bad metadata is a bug).
 */
import { AssertionError } from '../assert';
import { TideError } from '../errors';

export const METADATA_ROOT = '/tide';

const CLUSTER_NAME = /^[a-zA-Z0-9._-]{1,64}$/;
const TOPIC_SEGMENT = /^[a-zA-Z0-9._-]{1,249}$/;
const MAX_INT32 = 2 ** 31 - 1;

/** What a key under a cluster's root names. */
export type ParsedKey =
  | { kind: 'clusterId' }
  | { kind: 'controller' }
  | { kind: 'producerIds' }
  | { kind: 'broker'; brokerId: number }
  | { kind: 'topic'; topic: string }
  | { kind: 'partition'; topic: string; partition: number };

/** Builds and parses the keys of one cluster. */
export class MetadataKeys {
  /** `/tide/<cluster>/`, ending with a slash: every key of the cluster starts with it. */
  readonly root: string;

  constructor(readonly clusterName: string) {
    if (!CLUSTER_NAME.test(clusterName) || clusterName === '.' || clusterName === '..') {
      throw new TideError(
        'INVALID_CONFIG',
        `cluster name "${clusterName}" must be 1 to 64 characters of [a-zA-Z0-9._-]`,
      );
    }
    this.root = `${METADATA_ROOT}/${clusterName}/`;
  }

  get clusterId(): string {
    return `${this.root}cluster-id`;
  }
  /** The secret Tide's services present to write internal topics (internal-token.ts). */
  get internalToken(): string {
    return `${this.root}internal-token`;
  }
  get controller(): string {
    return `${this.root}controller`;
  }
  get producerIds(): string {
    return `${this.root}producer-ids`;
  }
  get brokersPrefix(): string {
    return `${this.root}brokers/`;
  }
  get topicsPrefix(): string {
    return `${this.root}topics/`;
  }
  get partitionsPrefix(): string {
    return `${this.root}partitions/`;
  }
  get coordinatorsPrefix(): string {
    return `${this.root}coordinators/`;
  }

  broker(id: number): string {
    checkBrokerId(id);
    return `${this.brokersPrefix}${id}`;
  }

  topic(name: string): string {
    checkTopicSegment(name);
    return `${this.topicsPrefix}${name}`;
  }

  /** Prefix of one topic's partition keys (with the trailing slash, so `a` never matches `ab`). */
  partitionsOf(topic: string): string {
    checkTopicSegment(topic);
    return `${this.partitionsPrefix}${topic}/`;
  }

  partition(topic: string, partition: number): string {
    if (!Number.isSafeInteger(partition) || partition < 0)
      throw new AssertionError(`partition ${partition} is not an index`);
    return `${this.partitionsOf(topic)}${partition}`;
  }

  /** What `key` names, or undefined for keys outside this cluster or not in the table above. */
  parse(key: string): ParsedKey | undefined {
    if (!key.startsWith(this.root)) return undefined;
    const rest = key.slice(this.root.length);
    if (rest === 'cluster-id') return { kind: 'clusterId' };
    if (rest === 'controller') return { kind: 'controller' };
    if (rest === 'producer-ids') return { kind: 'producerIds' };
    const parts = rest.split('/');
    if (parts[0] === 'brokers' && parts.length === 2 && /^(0|[1-9]\d{0,9})$/.test(parts[1])) {
      const brokerId = Number(parts[1]);
      return brokerId <= MAX_INT32 ? { kind: 'broker', brokerId } : undefined;
    }
    if (parts[0] === 'topics' && parts.length === 2 && TOPIC_SEGMENT.test(parts[1]))
      return { kind: 'topic', topic: parts[1] };
    if (
      parts[0] === 'partitions' &&
      parts.length === 3 &&
      TOPIC_SEGMENT.test(parts[1]) &&
      /^(0|[1-9]\d*)$/.test(parts[2])
    ) {
      return { kind: 'partition', topic: parts[1], partition: Number(parts[2]) };
    }
    return undefined;
  }
}

function checkBrokerId(id: number): void {
  if (!Number.isInteger(id) || id < 0 || id > MAX_INT32)
    throw new AssertionError(`broker id ${id} is not in 0..2^31-1`);
}

function checkTopicSegment(name: string): void {
  // Names are validated by the topic manager; a name that could escape its key segment is a bug.
  if (!TOPIC_SEGMENT.test(name))
    throw new AssertionError(`topic name ${JSON.stringify(name)} is not a valid key segment`);
}

// ---- values ----

/** /topics/<topic>: what the topic is. Partition states live in their own keys. */
export interface TopicRecord {
  /** Unique per incarnation: a topic deleted and re-created under the same name gets a new id. */
  topicId: string;
  /** Partition count; partitions are 0..partitions-1. */
  partitions: number;
  replicationFactor: number;
  /** Explicitly set topic configs (normalized); absent keys take their defaults. */
  configs: Record<string, string>;
  createdAtMs: number;
  /** Internal topics are hidden from listTopics unless asked for. */
  internal: boolean;
}

/** /partitions/<topic>/<p>: who holds a partition, versioned by epochs. */
export interface PartitionState {
  /** Broker id of the leader; -1 when the partition has no leader. */
  leader: number;
  /** Bumped on every leader change; replicas fence requests with an older epoch. */
  leaderEpoch: number;
  /** Bumped on every change of this state (leader, ISR, replicas). */
  partitionEpoch: number;
  /** Assigned replicas (AR), preferred leader first. */
  replicas: number[];
  /** In-sync replicas, a subset of replicas. */
  isr: number[];
}

/** /brokers/<id>: a live broker, under its lease. */
export interface BrokerRecord {
  id: number;
  host: string;
  port: number;
  /** Rack or zone for rack-aware placement; absent when unknown. */
  rack?: string;
}

/** /producer-ids: the first producer id no allocator has claimed yet. */
export interface ProducerIdBlockRecord {
  nextProducerId: number;
}

/** /controller: the active controller, under its lease. */
export interface ControllerRecord {
  controllerId: number;
  /** Bumped at each election; fences writes of older controllers. */
  epoch: number;
}

/** Where a value came from, for error messages. */
type Fields = Record<string, unknown>;

class Reader {
  constructor(
    private readonly key: string,
    readonly fields: Fields,
  ) {}

  fail(field: string, expected: string): never {
    throw malformed(
      this.key,
      `field ${field} must be ${expected} (got ${JSON.stringify(this.fields[field]) ?? 'nothing'})`,
    );
  }

  int(field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.fields[field];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      this.fail(
        field,
        max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer in ${min}..${max}`,
      );
    }
    return value;
  }

  string(field: string, pattern?: RegExp): string {
    const value = this.fields[field];
    if (typeof value !== 'string' || (pattern && !pattern.test(value))) {
      this.fail(field, pattern ? `a string matching ${pattern}` : 'a string');
    }
    return value;
  }

  bool(field: string): boolean {
    const value = this.fields[field];
    if (typeof value !== 'boolean') this.fail(field, 'true or false');
    return value;
  }

  brokerIds(field: string): number[] {
    const value = this.fields[field];
    const ok =
      Array.isArray(value) &&
      value.every((id) => typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= MAX_INT32) &&
      new Set(value).size === value.length;
    if (!ok) this.fail(field, 'a list of distinct broker ids');
    return [...(value as number[])];
  }

  stringMap(field: string): Record<string, string> {
    const value = this.fields[field];
    if (
      typeof value !== 'object' ||
      value === null ||
      Array.isArray(value) ||
      Object.values(value).some((v) => typeof v !== 'string')
    ) {
      this.fail(field, 'an object of string values');
    }
    return { ...(value as Record<string, string>) };
  }
}

function malformed(key: string, why: string): TideError {
  return new TideError('UNKNOWN', `malformed metadata at ${key}: ${why}`, { retriable: false });
}

function readObject(key: string, value: Buffer | string): Reader {
  const text = typeof value === 'string' ? value : value.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed(key, `not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw malformed(key, 'not a JSON object');
  return new Reader(key, parsed as Fields);
}

/** Encodes after checking with the decoder: writing a value no reader accepts is a bug. */
function encodeChecked<T>(record: T, decode: (value: string, key: string) => T, what: string): string {
  const text = JSON.stringify(record);
  try {
    decode(text, what);
  } catch (err) {
    throw new AssertionError((err as Error).message);
  }
  return text;
}

export function decodeTopicRecord(value: Buffer | string, key: string): TopicRecord {
  const r = readObject(key, value);
  return {
    topicId: r.string('topicId', /^[A-Za-z0-9_-]{1,64}$/),
    partitions: r.int('partitions', 1, MAX_INT32),
    replicationFactor: r.int('replicationFactor', 1, MAX_INT32),
    configs: r.stringMap('configs'),
    createdAtMs: r.int('createdAtMs', 0),
    internal: r.bool('internal'),
  };
}

export function encodeTopicRecord(record: TopicRecord): string {
  const { topicId, partitions, replicationFactor, configs, createdAtMs, internal } = record;
  return encodeChecked(
    { topicId, partitions, replicationFactor, configs, createdAtMs, internal },
    decodeTopicRecord,
    'topic record',
  );
}

export function decodePartitionState(value: Buffer | string, key: string): PartitionState {
  const r = readObject(key, value);
  const replicas = r.brokerIds('replicas');
  if (replicas.length === 0) r.fail('replicas', 'a non-empty list of distinct broker ids');
  const isr = r.brokerIds('isr');
  if (!isr.every((id) => replicas.includes(id)))
    r.fail('isr', `a subset of replicas ${JSON.stringify(replicas)}`);
  const leader = r.int('leader', -1, MAX_INT32);
  if (leader !== -1 && !replicas.includes(leader))
    r.fail('leader', `-1 or one of replicas ${JSON.stringify(replicas)}`);
  return {
    leader,
    leaderEpoch: r.int('leaderEpoch', 0, MAX_INT32),
    partitionEpoch: r.int('partitionEpoch', 0, MAX_INT32),
    replicas,
    isr,
  };
}

export function encodePartitionState(state: PartitionState): string {
  const { leader, leaderEpoch, partitionEpoch, replicas, isr } = state;
  return encodeChecked(
    { leader, leaderEpoch, partitionEpoch, replicas, isr },
    decodePartitionState,
    'partition state',
  );
}

export function decodeBrokerRecord(value: Buffer | string, key: string): BrokerRecord {
  const r = readObject(key, value);
  const record: BrokerRecord = {
    id: r.int('id', 0, MAX_INT32),
    host: r.string('host', /^\S+$/),
    port: r.int('port', 1, 65535),
  };
  if (r.fields.rack !== undefined) record.rack = r.string('rack');
  return record;
}

export function encodeBrokerRecord(record: BrokerRecord): string {
  const { id, host, port, rack } = record;
  return encodeChecked(
    rack === undefined ? { id, host, port } : { id, host, port, rack },
    decodeBrokerRecord,
    'broker record',
  );
}

export function decodeProducerIdBlock(value: Buffer | string, key: string): ProducerIdBlockRecord {
  return { nextProducerId: readObject(key, value).int('nextProducerId', 0) };
}

export function encodeProducerIdBlock(record: ProducerIdBlockRecord): string {
  return encodeChecked({ nextProducerId: record.nextProducerId }, decodeProducerIdBlock, 'producer id block');
}

export function decodeControllerRecord(value: Buffer | string, key: string): ControllerRecord {
  const r = readObject(key, value);
  return { controllerId: r.int('controllerId', 0, MAX_INT32), epoch: r.int('epoch', 0) };
}

export function encodeControllerRecord(record: ControllerRecord): string {
  const { controllerId, epoch } = record;
  return encodeChecked({ controllerId, epoch }, decodeControllerRecord, 'controller record');
}

/** The cluster id is stored as a bare string (readable with `etcdctl get`). */
export function decodeClusterId(value: Buffer | string, key: string): string {
  const text = typeof value === 'string' ? value : value.toString('utf8');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text))
    throw malformed(
      key,
      `cluster id ${JSON.stringify(text.slice(0, 80))} is not 1 to 64 characters of [A-Za-z0-9_-]`,
    );
  return text;
}
