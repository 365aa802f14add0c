/** A table re-grouped by a new key: aggregations with an adder and a subtractor. */
import { Serdes, type Serde } from '../serdes';
import type { Change } from '../record';
import { tableAggregate, type TableAggregateFns } from '../processors/aggregate';
import { changeSerde } from '../processors/change-serde';
import { storeGetter } from '../processors/table-ops';
import type { InternalBuilder, Named } from './internal-builder';
import { addRepartition } from './repartition';
import { KTable } from './ktable';

export class KGroupedTable<K, V> {
  /** @internal */
  constructor(
    private readonly builder: InternalBuilder,
    private readonly node: string,
    private readonly options: { key: Serde<K>; value: Serde<V>; name?: string },
  ) {}

  count(options: Named): KTable<K, number> {
    return this.aggregate(
      () => 0,
      (_k, _v, n) => n + 1,
      (_k, _v, n) => n - 1,
      { ...options, value: Serdes.number, operation: 'count' },
    );
  }

  reduce(
    adder: (aggregate: V, value: V) => V,
    subtractor: (aggregate: V, value: V) => V,
    options: Named,
  ): KTable<K, V> {
    // A reduce starts from the first value: the aggregate is null until one was added.
    return this.aggregate<V | null>(
      () => null,
      (_k, v, agg) => (agg === null ? v : adder(agg, v)),
      (_k, v, agg) => (agg === null ? null : subtractor(agg, v)),
      { ...options, value: this.options.value as Serde<V | null>, operation: 'reduce' },
    ) as KTable<K, V>;
  }

  aggregate<VA>(
    init: () => VA,
    adder: (key: K, value: V, aggregate: VA) => VA,
    subtractor: (key: K, value: V, aggregate: VA) => VA,
    options: Named & { value: Serde<VA>; operation?: string },
  ): KTable<K, VA> {
    const b = this.builder;
    const operation = options.operation ?? 'aggregate';
    const name = b.statefulName(operation, options, this.node);
    const source = addRepartition(b, {
      name: this.options.name ?? name,
      suffix: 'repartition',
      parent: this.node,
      key: this.options.key as Serde<unknown>,
      value: this.options.value as Serde<unknown>,
      changeSerde: changeSerde(this.options.value) as Serde<Change<unknown>>,
      reason: `table groupBy before ${operation} "${name}"`,
    });
    b.addStore({
      name,
      kind: 'keyValue',
      key: this.options.key as Serde<unknown>,
      value: options.value as Serde<unknown>,
      persistent: false,
      logged: true,
      global: false,
      timestamped: true,
    });
    const fns: TableAggregateFns<K, V, VA> = { init, add: adder, subtract: subtractor };
    const getter = storeGetter(name);
    const def = b.addNode({
      name,
      kind: 'processor',
      operation: `table-${operation}`,
      parents: [source],
      stores: [name],
      stateful: true,
      create: () => tableAggregate(name, fns),
      valueGetter: getter,
    });
    return new KTable<K, VA>(b, def.name, { key: this.options.key, value: options.value }, getter, [name]);
  }
}
