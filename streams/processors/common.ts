/** Small building blocks shared by the DSL's processors. */
import type { Processor } from '../processor';
import type { Change, StreamRecord } from '../record';
import { isCachingStore } from '../state/caching-key-value';
import { keyId } from '../state/key-id';
import type { StateStore } from '../state/stores';
import type { InternalProcessorContext } from '../runtime/internal-context';

/** Values as tables and aggregations store them: with the time of the update that made them. */
export interface Stamped<V> {
  value: V;
  timestamp: number;
}

/** A processor from one function, with the task's context at hand. */
export function processorOf<K, V>(
  process: (record: StreamRecord<K, V>, ctx: InternalProcessorContext) => void,
  init?: (ctx: InternalProcessorContext) => void,
): Processor<unknown, unknown> {
  let ctx!: InternalProcessorContext;
  const p: Processor<K, V> = {
    init(c) {
      ctx = c as InternalProcessorContext;
      init?.(ctx);
    },
    process(record) {
      process(record, ctx);
    },
  };
  return p as Processor<unknown, unknown>;
}

/**
 * Forwards table updates. With caching on, updates are held per key until the next commit and
 * only the latest is forwarded, carrying the value the key had before the first held update.
 * Given the processor's store, they are also forwarded whenever the record cache flushes that
 * store (an eviction), so what is held stays within the cache's bound and goes downstream with
 * the store write it reflects.
 */
export class ChangeForwarder<K, V> {
  private readonly held = new Map<string, StreamRecord<K, Change<V>>>();

  constructor(
    private readonly ctx: InternalProcessorContext,
    store?: StateStore,
  ) {
    if (!ctx.caching) return;
    ctx.onCommit(() => this.flush());
    if (isCachingStore(store)) store.onFlush(() => this.flush());
  }

  forward(record: StreamRecord<K, Change<V>>): void {
    if (!this.ctx.caching) {
      this.ctx.forward(record);
      return;
    }
    const id = heldId(record.key);
    const prior = this.held.get(id);
    if (prior) {
      // Re-queued at the end: a flush forwards in the order of the last updates, so no update
      // goes downstream before one that was made earlier (suppress relies on it).
      this.held.delete(id);
      this.held.set(id, {
        ...record,
        value: { newValue: record.value.newValue, oldValue: prior.value.oldValue },
      });
    } else {
      this.held.set(id, record);
    }
  }

  flush(): void {
    const records = [...this.held.values()];
    this.held.clear();
    for (const r of records) this.ctx.forward(r);
  }
}

/**
 * The identity of a held update's key. Windowed<K> (every windowed table's key) gets a cheaper
 * one than keyId's stable JSON of the object; the ids only live in the forwarder's map.
 */
function heldId(key: unknown): string {
  if (typeof key === 'object' && key !== null) {
    const w = (key as { window?: unknown }).window as { start?: unknown; end?: unknown } | undefined;
    if (
      typeof w === 'object' &&
      w !== null &&
      typeof w.start === 'number' &&
      typeof w.end === 'number' &&
      Object.keys(key).length === 2 &&
      'key' in key
    ) {
      return 'w' + w.start + ':' + w.end + '@' + keyId((key as { key: unknown }).key);
    }
  }
  return keyId(key);
}

/**
 * Expiry bound rounded down to a multiple of 1/16 of the retention: stores scan for expired
 * entries at most 16 times per retention period of stream time, not on every record.
 */
export function coarseExpiry(minTimeMs: number, retentionMs: number): number {
  const step = Math.max(1, Math.floor(retentionMs / 16));
  return minTimeMs - (((minTimeMs % step) + step) % step);
}
