/**
 * Where replica moves and decommissions live in the metadata store, so a controller that takes
 * over finds them and carries on (the moves' other half, the partition's replica list with the
 * adding replicas, is the partition state itself). The keys and record formats are in
 * services/common/metadata/reassignment-record.ts (brokers read the moves too).
 *
 * Only the active controller writes them, fenced, in the same transaction as the partition state
 * they go with.
 */
import type { KeyValue, MetadataStore } from '../common/metadata/store';
import {
  ElasticKeys,
  decodeReassignment,
  parseReassignmentKey,
  type ReassignmentRecord,
} from '../common/metadata/reassignment-record';

export {
  ElasticKeys,
  decodeReassignment,
  encodeReassignment,
  type DecommissionRecord,
  type MoveOrigin,
  type ReassignmentRecord,
} from '../common/metadata/reassignment-record';

export interface StoredReassignment {
  topic: string;
  partition: number;
  key: string;
  modRevision: number;
  record: ReassignmentRecord;
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
  const named = parseReassignmentKey(keys, kv.key);
  if (!named) return undefined;
  try {
    return {
      ...named,
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
