/**
 * Aggregations into key-value stores: of a grouped stream (count, reduce, aggregate) and of a
 * grouped table (adder and subtractor). Each update is forwarded as a table change (new and old
 * aggregate) with the highest timestamp of the records that made it.
 */
import type { Processor } from '../processor';
import type { Change } from '../record';
import type { KeyValueStore } from '../state/stores';
import { ChangeForwarder, processorOf, type Stamped } from './common';

/**
 * How values fold into an aggregate. Without `init` (reduce), the first value is the aggregate.
 * `merge` joins two aggregates (session windows merging).
 */
export interface AggregateFns<K, V, VA> {
  init?: () => VA;
  add: (key: K, value: V, aggregate: VA) => VA;
  merge?: (key: K, left: VA, right: VA) => VA;
}

export function addTo<K, V, VA>(fns: AggregateFns<K, V, VA>, key: K, value: V, prior: VA | null): VA {
  if (prior !== null) return fns.add(key, value, prior);
  return fns.init ? fns.add(key, value, fns.init()) : (value as unknown as VA);
}

export function streamAggregate<K, V, VA>(
  store: string,
  fns: AggregateFns<K, V, VA>,
): Processor<unknown, unknown> {
  let kv!: KeyValueStore<K, Stamped<VA>>;
  let out!: ChangeForwarder<K, VA>;
  return processorOf<K, V>(
    (r) => {
      // Kafka skips records without a key or value in aggregations: there is nothing to group.
      if (r.key === null || r.key === undefined || r.value === null || r.value === undefined) return;
      const old = kv.get(r.key);
      const value = addTo(fns, r.key, r.value, old ? old.value : null);
      const timestamp = Math.max(old?.timestamp ?? -1, r.timestamp);
      kv.put(r.key, { value, timestamp });
      out.forward({
        key: r.key,
        value: { newValue: value, oldValue: old ? old.value : null },
        timestamp,
        headers: r.headers,
      });
    },
    (ctx) => {
      kv = ctx.getStateStore(store);
      out = new ChangeForwarder(ctx, kv);
    },
  );
}

export interface TableAggregateFns<K, V, VA> {
  init: () => VA;
  add: (key: K, value: V, aggregate: VA) => VA;
  subtract: (key: K, value: V, aggregate: VA) => VA;
}

/** Aggregates table changes: the old value is subtracted, the new one added. */
export function tableAggregate<K, V, VA>(
  store: string,
  fns: TableAggregateFns<K, V, VA>,
): Processor<unknown, unknown> {
  let kv!: KeyValueStore<K, Stamped<VA>>;
  let out!: ChangeForwarder<K, VA>;
  return processorOf<K, Change<V>>(
    (r) => {
      if (r.key === null || r.key === undefined) return;
      const old = kv.get(r.key);
      let value = old ? old.value : fns.init();
      if (r.value.oldValue !== null) value = fns.subtract(r.key, r.value.oldValue, value);
      if (r.value.newValue !== null) value = fns.add(r.key, r.value.newValue, value);
      const timestamp = Math.max(old?.timestamp ?? -1, r.timestamp);
      kv.put(r.key, { value, timestamp });
      out.forward({
        key: r.key,
        value: { newValue: value, oldValue: old ? old.value : null },
        timestamp,
        headers: r.headers,
      });
    },
    (ctx) => {
      kv = ctx.getStateStore(store);
      out = new ChangeForwarder(ctx, kv);
    },
  );
}
