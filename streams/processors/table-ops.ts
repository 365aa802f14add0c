/** Table processors: materializing a source, filter, mapValues, toStream, groupBy's re-keying. */
import type { Processor, ProcessorContext, ValueGetter } from '../processor';
import type { Change, KeyValue } from '../record';
import { keyId } from '../state/key-id';
import type { KeyValueStore } from '../state/stores';
import { ChangeForwarder, processorOf, type Stamped } from './common';

/** Getter of a materialized table: reads its store. */
export function storeGetter(store: string): (ctx: ProcessorContext) => ValueGetter<unknown, unknown> {
  return (ctx) => {
    const kv = ctx.getStateStore<KeyValueStore<unknown, Stamped<unknown>>>(store);
    return (key) => kv.get(key);
  };
}

/** Turns a stream of values (null: delete) into table changes kept in `store`. */
export function materializeProcessor(store: string): Processor<unknown, unknown> {
  let kv!: KeyValueStore<unknown, Stamped<unknown>>;
  let out!: ChangeForwarder<unknown, unknown>;
  return processorOf<unknown, unknown>(
    (r) => {
      // A table is keyed: a record without a key cannot update it (Kafka drops it too).
      if (r.key === null || r.key === undefined) return;
      const old = kv.get(r.key);
      const value = r.value === undefined ? null : r.value;
      if (value === null && old === null) return;
      kv.put(r.key, value === null ? null : { value, timestamp: r.timestamp });
      out.forward({ ...r, value: { newValue: value, oldValue: old ? old.value : null } });
    },
    (ctx) => {
      kv = ctx.getStateStore(store);
      out = new ChangeForwarder(ctx, kv);
    },
  );
}

/** Applies `fn` to both values of a change; forwards unless both become null. */
export function mapChangeProcessor(
  fn: (value: unknown, key: unknown) => unknown | null,
): Processor<unknown, unknown> {
  return processorOf<unknown, Change<unknown>>((r, ctx) => {
    const newValue = r.value.newValue === null ? null : fn(r.value.newValue, r.key);
    const oldValue = r.value.oldValue === null ? null : fn(r.value.oldValue, r.key);
    if (newValue === null && oldValue === null) return;
    ctx.forward({ ...r, value: { newValue, oldValue } });
  });
}

export function mappedGetter(
  parent: (ctx: ProcessorContext) => ValueGetter<unknown, unknown>,
  fn: (value: unknown, key: unknown) => unknown | null,
): (ctx: ProcessorContext) => ValueGetter<unknown, unknown> {
  return (ctx) => {
    const get = parent(ctx);
    return (key) => {
      const v = get(key);
      if (v === null) return null;
      const value = fn(v.value, key);
      return value === null ? null : { value, timestamp: v.timestamp };
    };
  };
}

export function toStreamProcessor(): Processor<unknown, unknown> {
  return processorOf<unknown, Change<unknown>>((r, ctx) => ctx.forward({ ...r, value: r.value.newValue }));
}

/**
 * KTable.groupBy: each change becomes the old value under its old new-key (to subtract) and the
 * new value under its new-key (to add); one record when the key did not change.
 */
export function regroupProcessor(
  selector: (key: unknown, value: unknown) => KeyValue<unknown, unknown>,
): Processor<unknown, unknown> {
  return processorOf<unknown, Change<unknown>>((r, ctx) => {
    const oldKv = r.value.oldValue === null ? null : selector(r.key, r.value.oldValue);
    const newKv = r.value.newValue === null ? null : selector(r.key, r.value.newValue);
    if (oldKv && newKv && sameKey(oldKv[0], newKv[0])) {
      ctx.forward({ ...r, key: newKv[0], value: { newValue: newKv[1], oldValue: oldKv[1] } });
      return;
    }
    if (oldKv) ctx.forward({ ...r, key: oldKv[0], value: { newValue: null, oldValue: oldKv[1] } });
    if (newKv) ctx.forward({ ...r, key: newKv[0], value: { newValue: newKv[1], oldValue: null } });
  });
}

function sameKey(a: unknown, b: unknown): boolean {
  return keyId(a) === keyId(b);
}
