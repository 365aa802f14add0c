/**
 * Restoring a store from its changelog partition: a plain consumer reads from `from` (0, or the
 * checkpointed offset of an LMDB store) up to the end offset listed when the restore starts, and
 * applies each record to the store (the store's own changelog writes are muted meanwhile by the
 * caller). Records written after the listed end belong to the running task, which is not
 * processing yet, so there are none.
 */
import type { Tide } from '../../client/index';
import type { TopicPartition } from '../../client/types';
import {
  isBatchRestorable,
  type KeyValueStore,
  type SessionStore,
  type StateStore,
  type WindowStore,
} from '../state/stores';
import type { ChangelogCodec, DecodedChange } from './changelog';

export interface RestoreProgress {
  taskId: string;
  store: string;
  /** Changelog records applied so far. */
  restored: number;
  /** Records between the start offset and the end. */
  total: number;
  done: boolean;
}

/** A changelog record as restore hands it on (a key: records without one are skipped). */
export interface ChangelogRecord {
  key: Buffer;
  value: Buffer | null;
  timestampMs: number;
}

/** A changelog record's key and value (views into the fetched bytes) and its timestamp. */
export type ChangelogVisitor = (key: Buffer, value: Buffer | null, timestampMs: number) => void;

/**
 * One fetched chunk of changelog records, visited in offset order without an object per record:
 * at restore speed the garbage of record objects was a large share of the CPU.
 */
export interface ChangelogChunk {
  visit(visitor: ChangelogVisitor): void;
}

/** A chunk over records already built (tests, and callers that hold records). */
export function chunkOf(records: readonly ChangelogRecord[]): ChangelogChunk {
  return {
    visit(visitor) {
      for (const r of records) visitor(r.key, r.value, r.timestampMs);
    },
  };
}

export interface RestoreRequest {
  tide: Tide;
  tp: TopicPartition;
  from: number;
  /** exactlyOnce: skip aborted transactions' records; the end is the last stable offset. */
  readCommitted?: boolean;
  /**
   * Applies one fetched chunk's records, in offset order (a store writes them in one transaction).
   * It visits the chunk exactly once: restore counts the records as they are visited. A promise
   * means the writes finish in the background: restore applies the next chunk meanwhile, awaits
   * this one before the chunk after, and awaits the last before it returns.
   */
  apply(chunk: ChangelogChunk): void | Promise<void>;
  /**
   * `from` is past the changelog's end: the changelog was deleted and recreated, and a local copy
   * that held it cannot be trusted to match the new one (a key it lacks would stay). Called before
   * anything is applied, to empty the store; the restore then reads the changelog from its start.
   */
  reset?(): void;
  /** Once the end is known (restored 0), then after every fetched chunk. */
  onProgress?(restored: number, total: number): void;
}

export interface RestoreResult {
  restored: number;
  total: number;
  /** The offset after the last record. */
  end: number;
  /** The highest timestamp among the records restored (the writer's stream time); -1 if none. */
  maxTimestampMs: number;
}

/**
 * Restore reads at most this much per fetch: a chunk is one write transaction of an LMDB store,
 * and fewer, larger responses cost less per record (the consumer's 1 MiB default is sized for
 * steady reading, where a response's buffer stays alive while its records are processed).
 */
export const RESTORE_MAX_BYTES = 4 * 1024 * 1024;

/** Returns the records applied, how many there were, the offset after the last one, and the latest time. */
export async function restoreStore(req: RestoreRequest): Promise<RestoreResult> {
  const consumer = req.tide.consumer({
    autoOffsetReset: 'earliest',
    isolation: req.readCommitted ? 'read_committed' : 'read_uncommitted',
    maxBytes: RESTORE_MAX_BYTES,
  });
  try {
    const listed = await consumer.listOffset(req.tp, 'latest');
    const end = listed.offset;
    let from = req.from;
    if (from > end) {
      req.reset?.();
      from = 0;
    }
    from = Math.max(from, listed.logStartOffset);
    const total = Math.max(0, end - from);
    let restored = 0;
    let maxTimestampMs = -1;
    if (total === 0) return { restored, total, end, maxTimestampMs };
    req.onProgress?.(0, total);
    consumer.assign([{ ...req.tp, offset: from }]);
    // The tail may be transaction markers or aborted records that yield no batch: the position
    // (moved past them by the fetcher) is checked too, not only the records.
    const batches = consumer.batches();
    const reachedEnd = (): boolean => (consumer.position(req.tp) ?? from) >= end;
    let pending: ReturnType<typeof batches.next> | undefined;
    // The previous chunk's writes, while this one's are applied: at most two chunks queued.
    let writing: Promise<void> | void = undefined;
    while (!reachedEnd()) {
      let poll: NodeJS.Timeout | undefined;
      const tick = new Promise<'tick'>((resolve) => (poll = setTimeout(() => resolve('tick'), 100)));
      pending ??= batches.next();
      const next = await Promise.race([pending, tick]);
      clearTimeout(poll);
      if (next === 'tick') continue;
      pending = undefined;
      if (next.done) break;
      const batch = next.value;
      const written = req.apply({
        visit(visitor) {
          batch.forEachRecord((offset, timestampMs, key, value) => {
            if (offset < from || offset >= end) return;
            restored++;
            if (key === null) return;
            if (timestampMs > maxTimestampMs) maxTimestampMs = timestampMs;
            visitor(key, value, timestampMs);
          });
        },
      });
      // Awaited only after the next chunk: a failure meanwhile must not count as unhandled.
      if (written) written.catch(() => undefined);
      await writing;
      writing = written;
      req.onProgress?.(restored, total);
      if (next.value.nextOffset >= end) break;
    }
    await writing;
    void batches.return(undefined);
    return { restored, total, end, maxTimestampMs };
  } finally {
    await consumer.close();
  }
}

/** Writes a changelog record's change into the store it came from. */
export function applyChange(store: StateStore, change: DecodedChange): void {
  switch (store.kind) {
    case 'keyValue':
      (store as KeyValueStore<unknown, unknown>).put(change.key, change.value);
      return;
    case 'window':
      (store as WindowStore<unknown, unknown>).put(change.key, change.window!.start, change.value);
      return;
    case 'session': {
      const s = store as SessionStore<unknown, unknown>;
      if (change.value === null) s.remove(change.key, change.window!);
      else s.put(change.key, change.window!, change.value);
      return;
    }
  }
}

/**
 * How changelog records reach a store: a store that keeps the serdes' bytes (LMDB) takes each
 * chunk as bytes in one write transaction; the others (in memory) get each record decoded.
 */
export function changelogApplier(store: StateStore, codec: ChangelogCodec): (chunk: ChangelogChunk) => void {
  if (isBatchRestorable(store)) {
    return (chunk) =>
      store.restoreBatch((apply) => chunk.visit((key, value) => codec.applyRaw(key, value, apply)));
  }
  return (chunk) => chunk.visit((key, value) => applyChange(store, codec.decode(key, value)));
}

/**
 * changelogApplier for a restore, which nothing reads until it is done: an LMDB store's writes
 * are queued to LMDB's write thread (restoreQueued), so they run on another core while the next
 * chunk is fetched and decoded. A standby copy keeps changelogApplier: an active task may take
 * its store over between two chunks.
 */
export function restoreApplier(
  store: StateStore,
  codec: ChangelogCodec,
): (chunk: ChangelogChunk) => void | Promise<void> {
  if (isBatchRestorable(store)) {
    return (chunk) =>
      store.restoreQueued((apply) => chunk.visit((key, value) => codec.applyRaw(key, value, apply)));
  }
  return changelogApplier(store, codec);
}
