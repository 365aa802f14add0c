/**
 * KTable<K, V>: a changelog stream read as the latest value per key. Table nodes forward changes
 * (new and old value) and can read the current value of a key (a value getter) for joins; a
 * derived table (filter, mapValues, join) computes its value from its parents' stores.
 */
import type { ProcessorContext, ValueGetter } from '../processor';
import type { KeyValue } from '../record';
import type { Serde, Window } from '../serdes';
import {
  materializeProcessor,
  mapChangeProcessor,
  mappedGetter,
  regroupProcessor,
  storeGetter,
  toStreamProcessor,
} from '../processors/table-ops';
import { tableJoinGetter, tableTableJoinProcessor, type JoinKind } from '../processors/joins';
import { processorOf } from '../processors/common';
import { suppressProcessor } from '../processors/suppress';
import type { Processor } from '../processor';
import { requireStoreSerdes, type InternalBuilder, type Named } from './internal-builder';
import { KStream, type StreamSerdes } from './kstream';
import { KGroupedTable } from './kgrouped-table';
import { addRepartition } from './repartition';
import { foreignKeyJoin } from './fk-join';
import type { Suppressed } from './suppressed';

export type Getter = (ctx: ProcessorContext) => ValueGetter<unknown, unknown>;

/** Windowed tables know when a window closes (for suppress). */
export interface WindowClosing {
  /** The first stream time at which the window is closed. */
  closesAt(window: Window): number;
}

export class KTable<K, V> {
  /** @internal */
  constructor(
    readonly builder: InternalBuilder,
    readonly node: string,
    readonly serdes: StreamSerdes<K, V>,
    /** @internal Reads the table's current value of a key. */
    readonly getter: Getter,
    /** @internal The stores the getter reads (joins must run in the task that has them). */
    readonly storeNames: string[],
    /** @internal Set on windowed aggregations. */
    readonly windows?: WindowClosing,
  ) {}

  private derive<VR>(
    operation: string,
    create: () => Processor<unknown, unknown>,
    getter: Getter,
    serdes: StreamSerdes<K, VR>,
  ): KTable<K, VR> {
    const def = this.builder.addNode({
      name: this.builder.autoName(operation),
      kind: 'processor',
      operation,
      parents: [this.node],
      stores: [],
      stateful: false,
      create,
      valueGetter: getter,
    });
    return new KTable<K, VR>(this.builder, def.name, serdes, getter, this.storeNames, this.windows);
  }

  /** Keeps the keys whose value passes; a key whose value stops passing is deleted. */
  filter(predicate: (key: K, value: V) => boolean): KTable<K, V> {
    const fn = (v: unknown, k: unknown): unknown => (predicate(k as K, v as V) ? v : null);
    return this.derive(
      'table-filter',
      () => mapChangeProcessor(fn),
      mappedGetter(this.getter, fn),
      this.serdes,
    );
  }

  filterNot(predicate: (key: K, value: V) => boolean): KTable<K, V> {
    return this.filter((k, v) => !predicate(k, v));
  }

  mapValues<VR>(mapper: (value: V, key: K) => VR, options: { value?: Serde<VR> } = {}): KTable<K, VR> {
    const fn = (v: unknown, k: unknown): unknown => mapper(v as V, k as K);
    return this.derive('table-mapValues', () => mapChangeProcessor(fn), mappedGetter(this.getter, fn), {
      key: this.serdes.key,
      value: options.value,
    });
  }

  /** The table's updates as a stream; a delete is a record with a null value (a tombstone). */
  toStream(): KStream<K, V | null> {
    const def = this.builder.addNode({
      name: this.builder.autoName('toStream'),
      kind: 'processor',
      operation: 'toStream',
      parents: [this.node],
      stores: [],
      stateful: false,
      create: toStreamProcessor,
    });
    return new KStream<K, V | null>(this.builder, def.name, this.serdes as StreamSerdes<K, V | null>, false);
  }

  /** Re-groups the table by a new key (always repartitions); aggregate with an adder and a subtractor. */
  groupBy<KR, VR>(
    selector: (key: K, value: V) => KeyValue<KR, VR>,
    options: { key: Serde<KR>; value: Serde<VR>; name?: string },
  ): KGroupedTable<KR, VR> {
    const def = this.builder.addNode({
      name: this.builder.autoName('table-groupBy'),
      kind: 'processor',
      operation: 'table-groupBy',
      parents: [this.node],
      stores: [],
      stateful: false,
      create: () => regroupProcessor(selector as (k: unknown, v: unknown) => KeyValue<unknown, unknown>),
    });
    return new KGroupedTable<KR, VR>(this.builder, def.name, options);
  }

  /** Inner join on the key: a result while both tables have a value. */
  join<VO, VR>(
    other: KTable<K, VO>,
    joiner: (value: V, other: VO, key: K) => VR,
    options: Named,
  ): KTable<K, VR>;
  /**
   * Foreign-key join: each value of this table joins the other table's value at `foreignKey(value)`.
   * The tables need not be co-partitioned (two internal topics carry the lookups).
   */
  join<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKey: (value: V) => KO,
    joiner: (value: V, other: VO, key: K) => VR,
    options: Named,
  ): KTable<K, VR>;
  join(other: unknown, a: unknown, b: unknown, c?: unknown): unknown {
    if (typeof b === 'function') {
      return foreignKeyJoin(
        'inner',
        this,
        other as KTable<unknown, unknown>,
        a as never,
        b as never,
        c as Named,
      );
    }
    return this.tableJoin('inner', other as KTable<K, unknown>, a as never, b as Named);
  }

  /** Every key of this table; the joiner gets null while the other table has no value. */
  leftJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: (value: V, other: VO | null, key: K) => VR,
    options: Named,
  ): KTable<K, VR>;
  /** Foreign-key left join: the joiner gets null when the foreign key has no value (or is null). */
  leftJoin<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKey: (value: V) => KO | null,
    joiner: (value: V, other: VO | null, key: K) => VR,
    options: Named,
  ): KTable<K, VR>;
  leftJoin(other: unknown, a: unknown, b: unknown, c?: unknown): unknown {
    if (typeof b === 'function') {
      return foreignKeyJoin(
        'left',
        this,
        other as KTable<unknown, unknown>,
        a as never,
        b as never,
        c as Named,
      );
    }
    return this.tableJoin('left', other as KTable<K, unknown>, a as never, b as Named);
  }

  outerJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: (value: V | null, other: VO | null, key: K) => VR,
    options: Named,
  ): KTable<K, VR> {
    return this.tableJoin('outer', other, joiner as never, options);
  }

  /** Holds updates back: final results per window, or the latest per key after a time limit. */
  suppress(suppressed: Suppressed, options: Named): KTable<K, V> {
    const b = this.builder;
    const name = b.statefulName('suppress', options, this.node);
    const windows = this.windows;
    if (suppressed.kind === 'untilWindowCloses' && !windows) {
      b.problems.push(
        `suppress "${name}": untilWindowCloses needs a windowed table (groupByKey().windowedBy(...))`,
      );
    }
    b.addStore({ name, kind: 'keyValue', persistent: false, logged: true, global: false });
    const rule =
      suppressed.kind === 'untilWindowCloses'
        ? { kind: 'untilWindowCloses' as const, closesAt: (w: Window) => windows?.closesAt(w) ?? Infinity }
        : suppressed;
    const def = b.addNode({
      name,
      kind: 'processor',
      operation: `suppress(${suppressed.kind})`,
      parents: [this.node],
      stores: [name],
      stateful: true,
      create: () => suppressProcessor(name, rule),
      valueGetter: this.getter,
    });
    return new KTable<K, V>(b, def.name, this.serdes, this.getter, this.storeNames, this.windows);
  }

  private tableJoin<VO, VR>(
    kind: JoinKind,
    other: KTable<K, VO>,
    joiner: (l: unknown, r: unknown, k: unknown) => unknown,
    options: Named,
  ): KTable<K, VR> {
    const b = this.builder;
    const name = b.statefulName(`table-${kind}-join`, options, this.node);
    const stores = [...new Set([...this.storeNames, ...other.storeNames])];
    const left = b.addNode({
      name: `${name}-left`,
      kind: 'processor',
      operation: `table-table-${kind}-join`,
      parents: [this.node],
      stores,
      stateful: true,
      create: () => tableTableJoinProcessor(kind, 'left', other.getter, joiner),
    });
    const right = b.addNode({
      name: `${name}-right`,
      kind: 'processor',
      operation: `table-table-${kind}-join`,
      parents: [other.node],
      stores,
      stateful: true,
      create: () => tableTableJoinProcessor(kind, 'right', this.getter, joiner),
    });
    const getter = tableJoinGetter(kind, this.getter, other.getter, joiner);
    const merged = b.addNode({
      name,
      kind: 'processor',
      operation: 'table-join-merge',
      parents: [left.name, right.name],
      stores: [],
      stateful: false,
      coPartitioned: true,
      create: () => processorOf((r, ctx) => ctx.forward(r)),
      valueGetter: getter,
    });
    return new KTable<K, VR>(b, merged.name, { key: this.serdes.key }, getter, stores);
  }
}

/** A stream materialized as a table in the store `name` (KStream.toTable, StreamsBuilder.table). */
export function materializeStream<K, V>(
  stream: KStream<K, V>,
  options: Named & StreamSerdes<K, V>,
  operation = 'toTable',
): KTable<K, V> {
  const b = stream.builder;
  const name = b.statefulName(operation, options, stream.node);
  const serdes = { key: options.key ?? stream.serdes.key, value: options.value ?? stream.serdes.value };
  requireStoreSerdes(b, name, serdes.key, serdes.value, `${operation}({ name, key, value })`);
  b.addStore({
    name,
    kind: 'keyValue',
    key: serdes.key as Serde<unknown>,
    value: serdes.value as Serde<unknown>,
    persistent: false,
    logged: true,
    global: false,
    timestamped: true,
  });
  const getter = storeGetter(name);
  const parent = stream.repartitionRequired
    ? addRepartition(b, {
        name,
        suffix: 'repartition',
        parent: stream.node,
        key: serdes.key as Serde<unknown>,
        value: serdes.value as Serde<unknown>,
        reason: `${operation} "${name}" after a key change`,
      })
    : stream.node;
  const def = b.addNode({
    name,
    kind: 'processor',
    operation,
    parents: [parent],
    stores: [name],
    stateful: true,
    create: () => materializeProcessor(name),
    valueGetter: getter,
  });
  return new KTable<K, V>(b, def.name, serdes, getter, [name]);
}
