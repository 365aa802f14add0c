/**
 * Restoring a store from its changelog partition: a plain consumer reads from `from` (0, or the
 * checkpointed offset of an LMDB store) up to the end offset listed when the restore starts, and
 * applies each record to the store (the store's own changelog writes are muted meanwhile by the
 * caller). Records written after the listed end belong to the running task, which is not
 * processing yet, so there are none.
 */
import type { Tide } from '../../client/index';
import type { TopicPartition } from '../../client/types';
import type { KeyValueStore, SessionStore, StateStore, WindowStore } from '../state/stores';
import type { DecodedChange } from './changelog';

export interface RestoreProgress {
  taskId: string;
  store: string;
  /** Changelog records applied so far. */
  restored: number;
  /** Records between the start offset and the end. */
  total: number;
  done: boolean;
}

export interface RestoreRequest {
  tide: Tide;
  tp: TopicPartition;
  from: number;
  /** exactlyOnce: skip aborted transactions' records; the end is the last stable offset. */
  readCommitted?: boolean;
  apply(key: Buffer, value: Buffer | null): void;
  onProgress?(restored: number, total: number): void;
}

/** Returns the records applied, how many there were, and the offset after the last one. */
export async function restoreStore(
  req: RestoreRequest,
): Promise<{ restored: number; total: number; end: number }> {
  const consumer = req.tide.consumer({
    autoOffsetReset: 'earliest',
    isolation: req.readCommitted ? 'read_committed' : 'read_uncommitted',
  });
  try {
    const listed = await consumer.listOffset(req.tp, 'latest');
    const end = listed.offset;
    // A checkpoint past the end: the changelog was recreated; the local copy cannot be trusted
    // to match it, but replaying the whole changelog over it converges to the changelog's state.
    let from = req.from > end ? 0 : req.from;
    from = Math.max(from, listed.logStartOffset);
    const total = Math.max(0, end - from);
    let restored = 0;
    if (total === 0) return { restored, total, end };
    consumer.assign([{ ...req.tp, offset: from }]);
    // The tail may be transaction markers or aborted records that yield no batch: the position
    // (moved past them by the fetcher) is checked too, not only the records.
    const batches = consumer.batches();
    const reachedEnd = (): boolean => (consumer.position(req.tp) ?? from) >= end;
    let pending: ReturnType<typeof batches.next> | undefined;
    while (!reachedEnd()) {
      let poll: NodeJS.Timeout | undefined;
      const tick = new Promise<'tick'>((resolve) => (poll = setTimeout(() => resolve('tick'), 100)));
      pending ??= batches.next();
      const next = await Promise.race([pending, tick]);
      clearTimeout(poll);
      if (next === 'tick') continue;
      pending = undefined;
      if (next.done) break;
      for (const r of next.value.records) {
        if (r.offset < from) continue;
        if (r.offset >= end) break;
        if (r.key !== null) req.apply(r.key, r.value);
        restored++;
      }
      req.onProgress?.(restored, total);
      if (next.value.nextOffset >= end) break;
    }
    void batches.return(undefined);
    return { restored, total, end };
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
