/**
 * Windowed aggregations of a grouped stream. The result is a table keyed by Windowed<K>; with
 * `suppress(Suppressed.untilWindowCloses(), { name })` it emits one final result per window.
 */
import type { ProcessorContext, ValueGetter } from '../processor';
import { Serdes, type Serde, type Windowed } from '../serdes';
import type { SessionStore, WindowStore } from '../state/stores';
import type { SessionWindows, SlidingWindows, TimeWindows } from '../windows';
import type { AggregateFns } from '../processors/aggregate';
import type { Stamped } from '../processors/common';
import {
  sessionWindowAggregate,
  slidingWindowAggregate,
  timeWindowAggregate,
} from '../processors/window-aggregate';
import type { Processor } from '../processor';
import { requireStoreSerdes, type Named } from './internal-builder';
import type { KGroupedStream } from './kgrouped-stream';
import { KTable } from './ktable';

/** How long closed windows stay in the store (queryable) unless `retentionMs` says otherwise: Kafka's one day. */
export const DEFAULT_WINDOW_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Options of a windowed aggregation: its name and, optionally, how long its store keeps windows. */
export interface WindowedOptions extends Named {
  /** At least the window size plus grace; default max(that, one day). */
  retentionMs?: number;
}

function retention(b: { problems: string[] }, name: string, minimumMs: number, retentionMs?: number): number {
  if (retentionMs === undefined) return Math.max(minimumMs, DEFAULT_WINDOW_RETENTION_MS);
  if (!Number.isInteger(retentionMs) || retentionMs < minimumMs) {
    b.problems.push(
      `"${name}": retentionMs must be a whole number >= window size + grace (${minimumMs}), got ${retentionMs}`,
    );
  }
  return retentionMs;
}

export class TimeWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly grouped: KGroupedStream<K, V>,
    private readonly windows: TimeWindows | SlidingWindows,
  ) {}

  count(options: WindowedOptions): KTable<Windowed<K>, number> {
    return this.add<number>('count', options, Serdes.number, { init: () => 0, add: (_k, _v, n) => n + 1 });
  }

  reduce(
    reducer: (aggregate: V, value: V) => V,
    options: WindowedOptions & { value?: Serde<V> },
  ): KTable<Windowed<K>, V> {
    return this.add<V>('reduce', options, options.value ?? this.grouped.serdes.value, {
      add: (_k, v, agg) => reducer(agg, v),
    });
  }

  aggregate<VA>(
    init: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    options: WindowedOptions & { value: Serde<VA> },
  ): KTable<Windowed<K>, VA> {
    return this.add<VA>('aggregate', options, options.value, { init, add: aggregator });
  }

  private add<VA>(
    operation: string,
    options: WindowedOptions,
    valueSerde: Serde<VA> | undefined,
    fns: AggregateFns<K, V, VA>,
  ): KTable<Windowed<K>, VA> {
    const b = this.grouped.builder;
    const w = this.windows;
    const name = b.statefulName(`windowed-${operation}`, options, this.grouped.parentNode);
    const parent = this.grouped.input(name, operation);
    const sizeMs = w.type === 'time' ? w.sizeMs : w.timeDifferenceMs;
    const retentionMs = retention(b, name, w.retentionMs, options?.retentionMs);
    requireStoreSerdes(b, name, this.grouped.serdes.key, valueSerde, 'groupByKey({ key })');
    const keySerde = this.grouped.serdes.key;
    b.addStore({
      name,
      kind: 'window',
      key: keySerde as Serde<unknown>,
      value: valueSerde as Serde<unknown>,
      windowSizeMs: sizeMs,
      retentionMs,
      persistent: false,
      logged: true,
      global: false,
      timestamped: true,
      closesAt: (window) => w.closesAt(window),
    });
    const stores = [name];
    let create: () => Processor<unknown, unknown>;
    if (w.type === 'time') {
      create = () => timeWindowAggregate(name, w, fns, retentionMs);
    } else {
      const records = `${name}-records`;
      b.addStore({
        name: records,
        kind: 'keyValue',
        key: keySerde as Serde<unknown>,
        persistent: false,
        logged: true,
        global: false,
      });
      stores.push(records);
      create = () => slidingWindowAggregate(name, records, w, fns, retentionMs);
    }
    const getter = (ctx: ProcessorContext): ValueGetter<unknown, unknown> => {
      const ws = ctx.getStateStore<WindowStore<unknown, Stamped<unknown>>>(name);
      return (key) => {
        const k = key as Windowed<unknown>;
        return ws.fetch(k.key, k.window.start);
      };
    };
    const def = b.addNode({
      name,
      kind: 'processor',
      operation: `${w.type === 'time' ? (w.advanceMs === w.sizeMs ? 'tumbling' : 'hopping') : 'sliding'}-window-${operation}`,
      parents: [parent],
      stores,
      stateful: true,
      create,
      valueGetter: getter,
    });
    return new KTable<Windowed<K>, VA>(
      b,
      def.name,
      { key: keySerde ? Serdes.windowed(keySerde) : undefined, value: valueSerde },
      getter,
      [name],
      w,
    );
  }
}

export class SessionWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly grouped: KGroupedStream<K, V>,
    private readonly windows: SessionWindows,
  ) {}

  count(options: WindowedOptions): KTable<Windowed<K>, number> {
    return this.add<number>('count', options, Serdes.number, {
      init: () => 0,
      add: (_k, _v, n) => n + 1,
      merge: (_k, a, b) => a + b,
    });
  }

  reduce(
    reducer: (aggregate: V, value: V) => V,
    options: WindowedOptions & { value?: Serde<V> },
  ): KTable<Windowed<K>, V> {
    return this.add<V>('reduce', options, options.value ?? this.grouped.serdes.value, {
      add: (_k, v, agg) => reducer(agg, v),
      merge: (_k, a, b) => reducer(a, b),
    });
  }

  /** Sessions merge: `merger` combines the aggregates of two sessions a record bridges. */
  aggregate<VA>(
    init: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    merger: (key: K, left: VA, right: VA) => VA,
    options: WindowedOptions & { value: Serde<VA> },
  ): KTable<Windowed<K>, VA> {
    return this.add<VA>('aggregate', options, options.value, { init, add: aggregator, merge: merger });
  }

  private add<VA>(
    operation: string,
    options: WindowedOptions,
    valueSerde: Serde<VA> | undefined,
    fns: AggregateFns<K, V, VA> & { merge: (key: K, left: VA, right: VA) => VA },
  ): KTable<Windowed<K>, VA> {
    const b = this.grouped.builder;
    const name = b.statefulName(`session-${operation}`, options, this.grouped.parentNode);
    const parent = this.grouped.input(name, operation);
    const keySerde = this.grouped.serdes.key;
    const w = this.windows;
    const retentionMs = retention(b, name, w.inactivityGapMs + w.graceMs, options?.retentionMs);
    requireStoreSerdes(b, name, this.grouped.serdes.key, valueSerde, 'groupByKey({ key })');
    b.addStore({
      name,
      kind: 'session',
      retentionMs,
      key: keySerde as Serde<unknown>,
      value: valueSerde as Serde<unknown>,
      persistent: false,
      logged: true,
      global: false,
      timestamped: true,
      closesAt: (window) => w.closesAt(window),
    });
    const getter = (ctx: ProcessorContext): ValueGetter<unknown, unknown> => {
      const ss = ctx.getStateStore<SessionStore<unknown, Stamped<unknown>>>(name);
      return (key) => {
        const k = key as Windowed<unknown>;
        const s = ss
          .fetch(k.key)
          .find((e) => e.window.start === k.window.start && e.window.end === k.window.end);
        return s ? s.value : null;
      };
    };
    const def = b.addNode({
      name,
      kind: 'processor',
      operation: `session-window-${operation}`,
      parents: [parent],
      stores: [name],
      stateful: true,
      create: () => sessionWindowAggregate(name, w, fns, retentionMs),
      valueGetter: getter,
    });
    return new KTable<Windowed<K>, VA>(
      b,
      def.name,
      { key: keySerde ? Serdes.windowed(keySerde) : undefined, value: valueSerde },
      getter,
      [name],
      w,
    );
  }
}
