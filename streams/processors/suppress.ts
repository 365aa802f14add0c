/**
 * Suppression of table updates. `untilWindowCloses`: one final result per window, forwarded once
 * stream time closes the window (end + grace); intermediate results and deletes are never
 * forwarded. `untilTimeLimit`: the latest update per key, forwarded `timeLimitMs` of stream time
 * after the key's first buffered update. The buffer is a store, so a runtime can changelog it.
 *
 * Eviction runs on every stream-time advance of the task (a stream-time punctuation), not only
 * when a record reaches this node: a window closes even if its own key sees no more records.
 */
import type { Processor } from '../processor';
import type { Change, StreamRecord } from '../record';
import type { Window, Windowed } from '../serdes';
import type { KeyValueStore } from '../state/stores';
import type { InternalProcessorContext } from '../runtime/internal-context';
import { processorOf } from './common';

export type SuppressRule =
  | { kind: 'untilWindowCloses'; isClosed: (window: Window, streamTimeMs: number) => boolean }
  | { kind: 'untilTimeLimit'; timeLimitMs: number };

interface Held {
  record: StreamRecord<unknown, Change<unknown>>;
  /** untilTimeLimit: when the key's first held update arrived (stream time of its record). */
  sinceMs: number;
}

export function suppressProcessor(store: string, rule: SuppressRule): Processor<unknown, unknown> {
  let buffer!: KeyValueStore<unknown, Held>;
  let ctx!: InternalProcessorContext;

  const due = (h: Held, streamTime: number): boolean =>
    rule.kind === 'untilWindowCloses'
      ? rule.isClosed((h.record.key as Windowed<unknown>).window, streamTime)
      : h.sinceMs + rule.timeLimitMs <= streamTime;

  const evict = (streamTime: number): void => {
    const ready: [unknown, Held][] = [];
    for (const [key, held] of buffer.all()) if (due(held, streamTime)) ready.push([key, held]);
    ready.sort((a, b) => a[1].record.timestamp - b[1].record.timestamp);
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
      buffer.put(r.key, { record: { ...r, value }, sinceMs: prior ? prior.sinceMs : r.timestamp });
      evict(ctx.streamTime());
    },
    (c) => {
      ctx = c;
      buffer = c.getStateStore(store);
      c.schedule(1, 'streamTime', (now) => evict(now));
    },
  );
}
