/**
 * A grouped stream: count, reduce and aggregate per key, optionally per window. The aggregation's
 * name names its store and, if the stream's key was changed, its repartition topic
 * `<app>-<grouping name or aggregation name>-repartition`.
 */
import { Serdes, type Serde } from '../serdes';
import { streamAggregate, type AggregateFns } from '../processors/aggregate';
import { storeGetter } from '../processors/table-ops';
import type { Named } from './internal-builder';
import type { KStream, StreamSerdes } from './kstream';
import { addRepartition } from './repartition';
import { requireStoreSerdes } from './internal-builder';
import { KTable } from './ktable';
import { SessionWindowedKStream, TimeWindowedKStream } from './windowed-stream';
import type { SessionWindows, SlidingWindows, TimeWindows } from '../windows';

export class KGroupedStream<K, V> {
  /** @internal */
  constructor(
    private readonly stream: KStream<K, V>,
    readonly serdes: StreamSerdes<K, V>,
    private readonly groupName: string | undefined,
  ) {}

  /** @internal The node aggregations read: the stream, or its repartition topic's source. */
  input(aggregationName: string, operation: string): string {
    if (!this.stream.repartitionRequired) return this.stream.node;
    return addRepartition(this.stream.builder, {
      name: this.groupName ?? aggregationName,
      suffix: 'repartition',
      parent: this.stream.node,
      key: this.serdes.key as Serde<unknown>,
      value: this.serdes.value as Serde<unknown>,
      reason: `${operation} "${aggregationName}" after a key change`,
    });
  }

  /** @internal */
  get builder() {
    return this.stream.builder;
  }

  /** @internal */
  get parentNode(): string {
    return this.stream.node;
  }

  count(options: Named): KTable<K, number> {
    return this.add<number>('count', options, Serdes.number, { init: () => 0, add: (_k, _v, n) => n + 1 });
  }

  reduce(reducer: (aggregate: V, value: V) => V, options: Named & { value?: Serde<V> }): KTable<K, V> {
    return this.add<V>('reduce', options, options.value ?? this.serdes.value, {
      add: (_k, v, agg) => reducer(agg, v),
    });
  }

  aggregate<VA>(
    init: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    options: Named & { value: Serde<VA> },
  ): KTable<K, VA> {
    return this.add<VA>('aggregate', options, options.value, { init, add: aggregator });
  }

  windowedBy(windows: TimeWindows | SlidingWindows): TimeWindowedKStream<K, V>;
  windowedBy(windows: SessionWindows): SessionWindowedKStream<K, V>;
  windowedBy(
    windows: TimeWindows | SlidingWindows | SessionWindows,
  ): TimeWindowedKStream<K, V> | SessionWindowedKStream<K, V> {
    if (windows.type === 'session') return new SessionWindowedKStream(this, windows);
    return new TimeWindowedKStream(this, windows);
  }

  private add<VA>(
    operation: string,
    options: Named,
    valueSerde: Serde<VA> | undefined,
    fns: AggregateFns<K, V, VA>,
  ): KTable<K, VA> {
    const b = this.stream.builder;
    const name = b.statefulName(operation, options, this.stream.node);
    const parent = this.input(name, operation);
    requireStoreSerdes(b, name, this.serdes.key, valueSerde, `groupByKey({ key }) / groupBy(..., { key })`);
    b.addStore({
      name,
      kind: 'keyValue',
      key: this.serdes.key as Serde<unknown>,
      value: valueSerde as Serde<unknown>,
      persistent: false,
      logged: true,
      global: false,
      timestamped: true,
    });
    const getter = storeGetter(name);
    const def = b.addNode({
      name,
      kind: 'processor',
      operation,
      parents: [parent],
      stores: [name],
      stateful: true,
      create: () => streamAggregate(name, fns),
      valueGetter: getter,
    });
    return new KTable<K, VA>(b, def.name, { key: this.serdes.key, value: valueSerde }, getter, [name]);
  }
}
