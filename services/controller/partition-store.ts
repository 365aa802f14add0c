/**
 * Reading partition states with their modRevision, and writing new states in fenced,
 * compare-and-swap transactions: each batch carries the controller's fencing compares plus
 * `modRevision(partition key) == the revision read`, so a write never overwrites a change it did
 * not see and a deposed controller writes nothing.
 *
 * Batches hold at most `batchSize` partitions (etcd's --max-txn-ops, default 128, bounds the
 * compares and the ops of one transaction).
 */
import { TideError } from '../common/errors';
import {
  decodePartitionState,
  encodePartitionState,
  type MetadataKeys,
  type PartitionState,
} from '../common/metadata/keys';
import { compareHolds } from '../common/metadata/compare';
import type { Compare, KeyValue, MetadataStore, TxnOp } from '../common/metadata/store';

export const DEFAULT_WRITE_BATCH_SIZE = 64;

/** A partition state as stored, with what a compare-and-swap needs. */
export interface StoredPartition {
  topic: string;
  partition: number;
  key: string;
  modRevision: number;
  state: PartitionState;
}

/** A new state for a stored partition. */
export interface PartitionWrite {
  current: StoredPartition;
  next: PartitionState;
}

export interface WriteOutcome {
  /** Writes that were applied. */
  written: PartitionWrite[];
  /** Writes not applied because their partition changed since it was read (re-read and retry). */
  conflicted: PartitionWrite[];
}

/**
 * Every partition state of the given topics (all topics when `topics` is undefined), sorted by
 * topic then partition. Unreadable values are passed to `onUnreadable` and left out.
 */
export async function readPartitions(
  store: MetadataStore,
  keys: MetadataKeys,
  topics: Iterable<string> | undefined,
  onUnreadable: (key: string, err: unknown) => void,
): Promise<StoredPartition[]> {
  const ranges =
    topics === undefined
      ? [await store.getPrefix(keys.partitionsPrefix)]
      : await Promise.all([...topics].map((topic) => store.getPrefix(keys.partitionsOf(topic))));
  const out: StoredPartition[] = [];
  for (const range of ranges) {
    for (const kv of range.kvs) {
      const stored = toStoredPartition(keys, kv, onUnreadable);
      if (stored) out.push(stored);
    }
  }
  return out.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
}

/** One partition's stored state, or undefined when absent. */
export async function readPartition(
  store: MetadataStore,
  keys: MetadataKeys,
  topic: string,
  partition: number,
): Promise<StoredPartition | undefined> {
  const kv = await store.get(keys.partition(topic, partition));
  return (
    kv &&
    toStoredPartition(keys, kv, (_key, err) => {
      throw err;
    })
  );
}

/**
 * Writes the new states in fenced batches. Throws NOT_CONTROLLER (and writes nothing more) when a
 * fencing compare fails; partitions changed by someone else since they were read are returned as
 * conflicted, with the rest of their batch (re-read and decide again).
 */
export async function writePartitions(
  store: MetadataStore,
  writes: readonly PartitionWrite[],
  fencing: () => Compare[],
  batchSize = DEFAULT_WRITE_BATCH_SIZE,
): Promise<WriteOutcome> {
  const outcome: WriteOutcome = { written: [], conflicted: [] };
  for (let i = 0; i < writes.length; i += batchSize) {
    const batch = writes.slice(i, i + batchSize);
    const fence = fencing();
    const compares: Compare[] = [
      ...fence,
      ...batch.map((w): Compare => ({
        key: w.current.key,
        target: 'modRevision',
        op: '=',
        value: w.current.modRevision,
      })),
    ];
    const puts = batch.map((w): TxnOp => ({
      type: 'put',
      key: w.current.key,
      value: encodePartitionState(w.next),
    }));
    const fenceKeys = [...new Set(fence.map((c) => c.key))];
    const result = await store.txn(
      compares,
      puts,
      fenceKeys.map((key): TxnOp => ({ type: 'get', key })),
    );
    if (result.succeeded) {
      outcome.written.push(...batch);
      continue;
    }
    const byKey = new Map(fenceKeys.map((key, index) => [key, result.gets[index]]));
    const failed = fence.find((c) => !compareHolds(c, byKey.get(c.key)));
    if (failed) {
      throw new TideError(
        'NOT_CONTROLLER',
        `fenced: ${failed.key} no longer matches ${failed.target} ${failed.op} ${String(failed.value)} ` +
          '(another controller was elected); nothing more was written',
      );
    }
    outcome.conflicted.push(...batch);
  }
  return outcome;
}

function toStoredPartition(
  keys: MetadataKeys,
  kv: KeyValue,
  onUnreadable: (key: string, err: unknown) => void,
): StoredPartition | undefined {
  const parsed = keys.parse(kv.key);
  if (parsed?.kind !== 'partition') return undefined;
  try {
    return {
      topic: parsed.topic,
      partition: parsed.partition,
      key: kv.key,
      modRevision: kv.modRevision,
      state: decodePartitionState(kv.value, kv.key),
    };
  } catch (err) {
    onUnreadable(kv.key, err);
    return undefined;
  }
}
