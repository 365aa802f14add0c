/**
 * Suppression of table updates. `untilWindowCloses`: one final result per window, forwarded once
 * stream time closes the window (end + grace); intermediate results and deletes are never
 * forwarded. `untilTimeLimit`: the latest update per key, forwarded `timeLimitMs` of stream time
 * after the key's first buffered update. The buffer is a store, so a runtime can changelog it.
 *
 * Eviction runs on every stream-time advance of the task (a stream-time punctuation), not only
 * when a record reaches this node: a window closes even if its own key sees no more records.
 *
 * With caching, updates reach this node only when the cache upstream flushes, so the task's
 * stream time may already be past a window whose latest update is still held there. Eviction
 * then goes by the highest timestamp of the updates received (which the held ones cannot be
 * closed by: they are forwarded in the order they were made), and at each commit, once every
 * held update has arrived, by the task's stream time.
 */
import type { Processor } from '../processor';
import type { Change, StreamRecord } from '../record';
import type { Window, Windowed } from '../serdes';
import type { KeyValueStore } from '../state/stores';
import type { InternalProcessorContext } from '../runtime/internal-context';
import { processorOf } from './common';

export type SuppressRule =
  | { kind: 'untilWindowCloses'; closesAt: (window: Window) => number }
  | { kind: 'untilTimeLimit'; timeLimitMs: number };

export interface Held {
  record: StreamRecord<unknown, Change<unknown>>;
  /** untilTimeLimit: when the key's first held update arrived (stream time of its record). */
  sinceMs: number;
  /** The stream time at which it is forwarded. */
  dueMs: number;
}

export function suppressProcessor(store: string, rule: SuppressRule): Processor<unknown, unknown> {
  let buffer!: KeyValueStore<unknown, Held>;
  let ctx!: InternalProcessorContext;

  /**
   * The earliest due time of anything held: eviction scans the buffer only once that is reached.
   * It starts at -Infinity so the first scan also covers a buffer restored from a changelog.
   */
  let nextDueMs = -Infinity;
  /** Caching: the highest timestamp of the updates received. */
  let observedMs = -1;

  const evict = (streamTime: number): void => {
    if (streamTime < nextDueMs) return;
    const ready: [unknown, Held][] = [];
    nextDueMs = Infinity;
    for (const [key, held] of buffer.all()) {
      if (held.dueMs <= streamTime) ready.push([key, held]);
      else nextDueMs = Math.min(nextDueMs, held.dueMs);
    }
    ready.sort((a, b) => a[1].dueMs - b[1].dueMs || a[1].record.timestamp - b[1].record.timestamp);
    for (const [key, held] of ready) {
      buffer.delete(key);
      // Final results only: a window's delete (a merged-away session) is not a result.
      if (rule.kind === 'untilWindowCloses' && held.record.value.newValue === null) continue;
      ctx.forward(held.record);
    }
  };

  return processorOf<unknown, Change<unknown>>(
    (r) => {
      const prior = buffer.get(r.key);
      const value = {
        newValue: r.value.newValue,
        oldValue: prior ? prior.record.value.oldValue : r.value.oldValue,
      };
      const sinceMs = prior ? prior.sinceMs : r.timestamp;
      const dueMs =
        rule.kind === 'untilWindowCloses'
          ? rule.closesAt((r.key as Windowed<unknown>).window)
          : sinceMs + rule.timeLimitMs;
      buffer.put(r.key, { record: { ...r, value }, sinceMs, dueMs });
      nextDueMs = Math.min(nextDueMs, dueMs);
      observedMs = Math.max(observedMs, r.timestamp);
      evict(ctx.caching ? observedMs : ctx.streamTime());
    },
    (c) => {
      ctx = c;
      buffer = c.getStateStore(store);
      c.schedule(1, 'streamTime', (now) => evict(c.caching ? observedMs : now));
      // Commit hooks run parents first: the updates held upstream have all arrived by now.
      if (c.caching) c.onCommit(() => evict(c.streamTime()));
    },
  );
}
