/**
 * Where replica moves and decommissions live in the metadata store, so a controller that takes
 * over finds them and carries on (the moves' other half, the partition's replica list with the
 * adding replicas, is the partition state itself):
 *
 *   /tide/<cluster>/reassignments/<topic>/<p>   ReassignmentRecord (JSON): the move's target
 *   /tide/<cluster>/decommissions/<brokerId>    DecommissionRecord (JSON): the broker is emptied
 *
 * Only the active controller writes them, fenced, in the same transaction as the partition state
 * they go with.
 */
import { TideError } from '../common/errors';
import type { MetadataKeys } from '../common/metadata/keys';
import type { KeyValue, MetadataStore } from '../common/metadata/store';

/** Who started a move: an operator's plan, a decommission, or the balancer. */
export type MoveOrigin = 'admin' | 'decommission' | 'balancer';
const ORIGINS: readonly MoveOrigin[] = ['admin', 'decommission', 'balancer'];

export interface ReassignmentRecord {
  /** The replicas the partition ends with, preferred leader first. */
  target: number[];
  /** The replicas it had when the move started (a cancel returns to them). */
  original: number[];
  startedAtMs: number;
  origin: MoveOrigin;
}

export interface StoredReassignment {
  topic: string;
  partition: number;
  key: string;
  modRevision: number;
  record: ReassignmentRecord;
}

export interface DecommissionRecord {
  startedAtMs: number;
}

/** The key names of reassignments and decommissions under a cluster's root. */
export class ElasticKeys {
  constructor(private readonly keys: MetadataKeys) {}

  get reassignmentsPrefix(): string {
    return `${this.keys.root}reassignments/`;
  }
  reassignmentsOf(topic: string): string {
    return `${this.reassignmentsPrefix}${topic}/`;
  }
  reassignment(topic: string, partition: number): string {
    // keys.partition validates the topic segment and the index.
    this.keys.partition(topic, partition);
    return `${this.reassignmentsOf(topic)}${partition}`;
  }
  get decommissionsPrefix(): string {
    return `${this.keys.root}decommissions/`;
  }
  decommission(brokerId: number): string {
    this.keys.broker(brokerId);
    return `${this.decommissionsPrefix}${brokerId}`;
  }
}

function malformed(key: string, why: string): TideError {
  return new TideError('UNKNOWN', `malformed metadata at ${key}: ${why}`, { retriable: false });
}

function brokerIds(key: string, field: string, value: unknown): number[] {
  const ok =
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((id) => typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= 0x7fffffff) &&
    new Set(value).size === value.length;
  if (!ok) throw malformed(key, `${field} must be a non-empty list of distinct broker ids`);
  return [...(value as number[])];
}

export function decodeReassignment(value: Buffer | string, key: string): ReassignmentRecord {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(typeof value === 'string' ? value : value.toString('utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    throw malformed(key, 'not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw malformed(key, 'not a JSON object');
  const startedAtMs = parsed.startedAtMs;
  if (typeof startedAtMs !== 'number' || !Number.isSafeInteger(startedAtMs) || startedAtMs < 0)
    throw malformed(key, 'startedAtMs must be an integer >= 0');
  const origin = parsed.origin;
  if (!ORIGINS.includes(origin as MoveOrigin))
    throw malformed(key, `origin must be one of ${ORIGINS.join(', ')}`);
  return {
    target: brokerIds(key, 'target', parsed.target),
    original: brokerIds(key, 'original', parsed.original),
    startedAtMs,
    origin: origin as MoveOrigin,
  };
}

export function encodeReassignment(record: ReassignmentRecord): string {
  const { target, original, startedAtMs, origin } = record;
  return JSON.stringify({ target, original, startedAtMs, origin });
}

/** Every stored reassignment (of `topics`, or all), sorted by topic then partition. */
export async function readReassignments(
  store: MetadataStore,
  keys: ElasticKeys,
  onUnreadable: (key: string, err: unknown) => void,
  topics?: Iterable<string>,
): Promise<StoredReassignment[]> {
  const ranges =
    topics === undefined
      ? [await store.getPrefix(keys.reassignmentsPrefix)]
      : await Promise.all([...topics].map((t) => store.getPrefix(keys.reassignmentsOf(t))));
  const out: StoredReassignment[] = [];
  for (const range of ranges) {
    for (const kv of range.kvs) {
      const stored = toStored(keys, kv, onUnreadable);
      if (stored) out.push(stored);
    }
  }
  return out.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
}

function toStored(
  keys: ElasticKeys,
  kv: KeyValue,
  onUnreadable: (key: string, err: unknown) => void,
): StoredReassignment | undefined {
  const rest = kv.key.slice(keys.reassignmentsPrefix.length).split('/');
  if (rest.length !== 2 || !/^(0|[1-9]\d*)$/.test(rest[1])) return undefined;
  try {
    return {
      topic: rest[0],
      partition: Number(rest[1]),
      key: kv.key,
      modRevision: kv.modRevision,
      record: decodeReassignment(kv.value, kv.key),
    };
  } catch (err) {
    onUnreadable(kv.key, err);
    return undefined;
  }
}

/** Broker ids being decommissioned. */
export async function readDecommissions(store: MetadataStore, keys: ElasticKeys): Promise<Set<number>> {
  const { kvs } = await store.getPrefix(keys.decommissionsPrefix);
  const ids = new Set<number>();
  for (const kv of kvs) {
    const id = kv.key.slice(keys.decommissionsPrefix.length);
    if (/^(0|[1-9]\d{0,9})$/.test(id)) ids.add(Number(id));
  }
  return ids;
}
