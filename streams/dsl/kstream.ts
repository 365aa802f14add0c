/**
 * KStream<K, V>: an unbounded stream of keyed records. Stateless operations return new streams;
 * an operation that changes the key marks the stream, and the next grouping or join repartitions
 * it through `<app>-<name>-repartition` so each key is processed by one task.
 */
import { StreamsError } from '../errors';
import type { Processor, ProcessorSupplier } from '../processor';
import type { KeyValue, StreamRecord } from '../record';
import type { Serde } from '../serdes';
import type { JoinWindows } from '../windows';
import type { SinkPartitioner } from '../runtime/internal-context';
import { processorOf } from '../processors/common';
import { sinkProcessor } from '../processors/source-sink';
import type { StoreDef } from '../topology/nodes';
import type { InternalBuilder, Named } from './internal-builder';
import { addRepartition } from './repartition';
import { KGroupedStream } from './kgrouped-stream';
import { KTable, materializeStream } from './ktable';
import type { GlobalKTable } from './global-ktable';
import { streamGlobalJoin, streamStreamJoin, streamTableJoin, type JoinKind } from './stream-joins';

/** Serdes a stream may carry; an operation that changes a type drops the serde of that part. */
export interface StreamSerdes<K, V> {
  key?: Serde<K>;
  value?: Serde<V>;
}

export interface ToOptions<K, V> {
  key?: Serde<K>;
  value?: Serde<NonNullable<V>>;
  /** Picks the partition; undefined from it (or no partitioner): murmur2 of the key bytes. */
  partitioner?: (key: K, value: V, partitions: number) => number | undefined;
}

export interface RepartitionOptions<K, V> extends Named {
  partitions?: number;
  key?: Serde<K>;
  value?: Serde<V>;
}

export interface GroupedOptions<K, V> {
  /** Names the repartition topic, if one is needed (default: the aggregation's name). */
  name?: string;
  key?: Serde<K>;
  value?: Serde<V>;
}

export interface StreamJoinOptions<K, V, VO> extends Named {
  /** Serdes of this side and the other, for the join stores and any repartition. */
  key?: Serde<K>;
  value?: Serde<V>;
  otherValue?: Serde<VO>;
}

export interface ProcessOptions extends Named {
  /** Stores the processor uses (Stores.keyValue(...)): created per task, reachable by name. */
  stores?: StoreDef[];
}

export class KStream<K, V> {
  /** @internal */
  constructor(
    readonly builder: InternalBuilder,
    /** The node this stream's records come out of. */
    readonly node: string,
    readonly serdes: StreamSerdes<K, V>,
    /** The key was changed since the last (re)partitioning. */
    readonly repartitionRequired: boolean,
  ) {}

  private add<KR, VR>(
    operation: string,
    create: () => Processor<unknown, unknown>,
    serdes: StreamSerdes<KR, VR>,
    rekeyed: boolean,
    name?: string,
  ): KStream<KR, VR> {
    const def = this.builder.addNode({
      name: name ?? this.builder.autoName(operation),
      kind: 'processor',
      operation,
      parents: [this.node],
      stores: [],
      stateful: false,
      create,
    });
    return new KStream<KR, VR>(this.builder, def.name, serdes, this.repartitionRequired || rekeyed);
  }

  filter(predicate: (key: K, value: V) => boolean): KStream<K, V> {
    return this.add(
      'filter',
      () => processorOf<K, V>((r, ctx) => predicate(r.key, r.value) && ctx.forward(r)),
      this.serdes,
      false,
    );
  }

  filterNot(predicate: (key: K, value: V) => boolean): KStream<K, V> {
    return this.add(
      'filterNot',
      () => processorOf<K, V>((r, ctx) => !predicate(r.key, r.value) && ctx.forward(r)),
      this.serdes,
      false,
    );
  }

  /** New key and value; marks the stream for repartitioning. */
  map<KR, VR>(mapper: (key: K, value: V) => KeyValue<KR, VR>): KStream<KR, VR> {
    return this.add(
      'map',
      () =>
        processorOf<K, V>((r, ctx) => {
          const [key, value] = mapper(r.key, r.value);
          ctx.forward({ ...r, key, value });
        }),
      {},
      true,
    );
  }

  /** New value, same key: no repartitioning. */
  mapValues<VR>(mapper: (value: V, key: K) => VR): KStream<K, VR> {
    return this.add(
      'mapValues',
      () => processorOf<K, V>((r, ctx) => ctx.forward({ ...r, value: mapper(r.value, r.key) })),
      { key: this.serdes.key },
      false,
    );
  }

  flatMap<KR, VR>(mapper: (key: K, value: V) => Iterable<KeyValue<KR, VR>>): KStream<KR, VR> {
    return this.add(
      'flatMap',
      () =>
        processorOf<K, V>((r, ctx) => {
          for (const [key, value] of mapper(r.key, r.value)) ctx.forward({ ...r, key, value });
        }),
      {},
      true,
    );
  }

  flatMapValues<VR>(mapper: (value: V, key: K) => Iterable<VR>): KStream<K, VR> {
    return this.add(
      'flatMapValues',
      () =>
        processorOf<K, V>((r, ctx) => {
          for (const value of mapper(r.value, r.key)) ctx.forward({ ...r, value });
        }),
      { key: this.serdes.key },
      false,
    );
  }

  /** New key, same value; marks the stream for repartitioning. */
  selectKey<KR>(selector: (key: K, value: V) => KR): KStream<KR, V> {
    return this.add(
      'selectKey',
      () => processorOf<K, V>((r, ctx) => ctx.forward({ ...r, key: selector(r.key, r.value) })),
      { value: this.serdes.value },
      true,
    );
  }

  peek(action: (key: K, value: V) => void): KStream<K, V> {
    return this.add(
      'peek',
      () =>
        processorOf<K, V>((r, ctx) => {
          action(r.key, r.value);
          ctx.forward(r);
        }),
      this.serdes,
      false,
    );
  }

  /** A terminal operation: calls `action` for every record. */
  foreach(action: (key: K, value: V) => void): void {
    this.add('foreach', () => processorOf<K, V>((r) => action(r.key, r.value)), this.serdes, false);
  }

  /** Both streams' records, in processing order. */
  merge(other: KStream<K, V>): KStream<K, V> {
    const def = this.builder.addNode({
      name: this.builder.autoName('merge'),
      kind: 'processor',
      operation: 'merge',
      parents: [this.node, other.node],
      stores: [],
      stateful: false,
      create: () => processorOf((r, ctx) => ctx.forward(r)),
    });
    const same = <T>(a?: Serde<T>, b?: Serde<T>): Serde<T> | undefined => (a === b ? a : (a ?? b));
    return new KStream<K, V>(
      this.builder,
      def.name,
      { key: same(this.serdes.key, other.serdes.key), value: same(this.serdes.value, other.serdes.value) },
      this.repartitionRequired || other.repartitionRequired,
    );
  }

  /** Routes each record to the first branch whose predicate holds: `split().branch(...).defaultBranch()`. */
  split(named: { name?: string } = {}): BranchedKStream<K, V> {
    return new BranchedKStream(this, named.name ?? this.builder.autoName('split'));
  }

  /** Writes the stream to a topic (serdes: given here, else the stream's). */
  to(topic: string, options: ToOptions<K, V> = {}): void {
    const key = (options.key ?? this.serdes.key) as Serde<unknown> | undefined;
    const value = (options.value ?? this.serdes.value) as Serde<unknown> | undefined;
    const hint = `pass { key, value } to to('${topic}', ...)`;
    this.builder.requireSerde(key, `the key written to ${topic}`, hint);
    this.builder.requireSerde(value, `the value written to ${topic}`, hint);
    const partitioner = options.partitioner as SinkPartitioner | undefined;
    this.builder.addNode({
      name: this.builder.autoName('to'),
      kind: 'sink',
      operation: 'to',
      parents: [this.node],
      stores: [],
      stateful: false,
      sink: { topic, key, value, internal: false, partitioner },
      create: () => sinkProcessor({ topic, key, value, partitioner, fromTable: false }),
    });
  }

  /** Repartitions now through `<app>-<name>-repartition` (optionally with its own partition count). */
  repartition(options: RepartitionOptions<K, V>): KStream<K, V> {
    const name = this.builder.statefulName('repartition', options, this.node);
    if (
      options.partitions !== undefined &&
      (!Number.isInteger(options.partitions) || options.partitions < 1)
    ) {
      this.builder.problems.push(`repartition "${name}": partitions must be a whole number >= 1`);
    }
    const serdes = { key: options.key ?? this.serdes.key, value: options.value ?? this.serdes.value };
    const source = addRepartition(this.builder, {
      name,
      suffix: 'repartition',
      parent: this.node,
      key: serdes.key as Serde<unknown>,
      value: serdes.value as Serde<unknown>,
      partitions: options.partitions,
      reason: `repartition "${name}"`,
    });
    return new KStream<K, V>(this.builder, source, serdes, false);
  }

  /** Groups by the current key (repartitioning first if the key was changed). */
  groupByKey(options: GroupedOptions<K, V> = {}): KGroupedStream<K, V> {
    const serdes = { key: options.key ?? this.serdes.key, value: options.value ?? this.serdes.value };
    return new KGroupedStream<K, V>(this, serdes, options.name);
  }

  /** Groups by a new key: always repartitions. The new key's serde is required. */
  groupBy<KR>(
    selector: (key: K, value: V) => KR,
    options: { key: Serde<KR>; value?: Serde<V>; name?: string },
  ): KGroupedStream<KR, V> {
    return this.selectKey(selector).groupByKey({
      key: options.key,
      value: options.value ?? this.serdes.value,
      name: options.name,
    });
  }

  /** The latest value per key as a table, materialized in the store `name`. */
  toTable(options: Named & StreamSerdes<K, V>): KTable<K, V> {
    return materializeStream(this, options);
  }

  /** Adds a custom processor (Processor API); its stores are created per task. */
  process<KR, VR>(supplier: ProcessorSupplier<K, V>, options: ProcessOptions): KStream<KR, VR> {
    const name = this.builder.statefulName('process', options, this.node);
    for (const s of options.stores ?? []) this.builder.addStore(s);
    const def = this.builder.addNode({
      name,
      kind: 'processor',
      operation: 'process',
      parents: [this.node],
      stores: (options.stores ?? []).map((s) => s.name),
      stateful: true,
      create: supplier as () => Processor<unknown, unknown>,
    });
    return new KStream<KR, VR>(this.builder, def.name, {}, true);
  }

  /** Inner join with another stream: records with equal keys and timestamps within the windows. */
  join<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: V, other: VO, key: K) => VR,
    windows: JoinWindows,
    options: StreamJoinOptions<K, V, VO>,
  ): KStream<K, VR>;
  /** Inner join with a table: each record looks up the table's current value for its key. */
  join<VT, VR>(
    table: KTable<K, VT>,
    joiner: (value: V, tableValue: VT, key: K) => VR,
    options: Named,
  ): KStream<K, VR>;
  /** Inner join with a global table through a key selector (no co-partitioning needed). */
  join<KG, VG, VR>(
    table: GlobalKTable<KG, VG>,
    keySelector: (key: K, value: V) => KG,
    joiner: (value: V, tableValue: VG, key: K) => VR,
    options: Named,
  ): KStream<K, VR>;
  join(other: unknown, a: unknown, b: unknown, c?: unknown): unknown {
    return this.dispatchJoin('inner', other, a, b, c);
  }

  /** Left join with a stream: unmatched records are joined with null once their window closes. */
  leftJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: V, other: VO | null, key: K) => VR,
    windows: JoinWindows,
    options: StreamJoinOptions<K, V, VO>,
  ): KStream<K, VR>;
  leftJoin<VT, VR>(
    table: KTable<K, VT>,
    joiner: (value: V, tableValue: VT | null, key: K) => VR,
    options: Named,
  ): KStream<K, VR>;
  leftJoin<KG, VG, VR>(
    table: GlobalKTable<KG, VG>,
    keySelector: (key: K, value: V) => KG,
    joiner: (value: V, tableValue: VG | null, key: K) => VR,
    options: Named,
  ): KStream<K, VR>;
  leftJoin(other: unknown, a: unknown, b: unknown, c?: unknown): unknown {
    return this.dispatchJoin('left', other, a, b, c);
  }

  /** Outer join with a stream: either side may be null. */
  outerJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: V | null, other: VO | null, key: K) => VR,
    windows: JoinWindows,
    options: StreamJoinOptions<K, V, VO>,
  ): KStream<K, VR> {
    return streamStreamJoin('outer', this, other, joiner as never, windows, options) as KStream<K, VR>;
  }

  private dispatchJoin(kind: JoinKind, other: unknown, a: unknown, b: unknown, c: unknown): unknown {
    if (other instanceof KStream) {
      return streamStreamJoin(kind, this, other, a as never, b as JoinWindows, c as never);
    }
    if (other instanceof KTable) return streamTableJoin(kind, this, other, a as never, b as Named);
    return streamGlobalJoin(
      kind,
      this,
      other as GlobalKTable<unknown, unknown>,
      a as never,
      b as never,
      c as Named,
    );
  }
}

/** The branches of `split()`, named `<split name>-<branch name>`. */
export class BranchedKStream<K, V> {
  private readonly branches: { name: string; predicate: (key: K, value: V) => boolean }[] = [];
  private readonly node: string;
  private done = false;

  /** @internal */
  constructor(
    private readonly stream: KStream<K, V>,
    private readonly prefix: string,
  ) {
    const branches = this.branches;
    const def = stream.builder.addNode({
      name: prefix,
      kind: 'processor',
      operation: 'split',
      parents: [stream.node],
      stores: [],
      stateful: false,
      create: () =>
        processorOf<K, V>((r, ctx) => {
          for (const b of branches) {
            if (b.predicate(r.key, r.value)) {
              ctx.forward(r, b.name);
              return;
            }
          }
        }),
    });
    this.node = def.name;
  }

  branch(predicate: (key: K, value: V) => boolean, named: Named): this {
    if (this.done) {
      throw new StreamsError(
        'TOPOLOGY',
        `split "${this.prefix}": branch() after defaultBranch()/noDefaultBranch()`,
      );
    }
    const name = `${this.prefix}-${named.name}`;
    this.branches.push({ name, predicate });
    this.addBranchNode(name);
    return this;
  }

  /** Records no predicate took go to the branch `default` (or the given name). */
  defaultBranch(named: Named = { name: 'default' }): Record<string, KStream<K, V>> {
    this.branches.push({ name: `${this.prefix}-${named.name}`, predicate: () => true });
    this.addBranchNode(`${this.prefix}-${named.name}`);
    return this.noDefaultBranch();
  }

  /** The branches by name (`<split name>-<branch name>`); unmatched records are dropped. */
  noDefaultBranch(): Record<string, KStream<K, V>> {
    this.done = true;
    const out: Record<string, KStream<K, V>> = {};
    for (const b of this.branches) {
      out[b.name] = new KStream<K, V>(
        this.stream.builder,
        b.name,
        this.stream.serdes,
        this.stream.repartitionRequired,
      );
    }
    return out;
  }

  private addBranchNode(name: string): void {
    this.stream.builder.addNode({
      name,
      kind: 'processor',
      operation: 'branch',
      parents: [this.node],
      stores: [],
      stateful: false,
      create: () => processorOf((r: StreamRecord<unknown, unknown>, ctx) => ctx.forward(r)),
    });
  }
}
