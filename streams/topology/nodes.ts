/**
 * The topology graph as the builder records it: nodes (sources, processors, sinks) and stores.
 * A node's `create` makes a fresh processor for each task; tables also give a value getter.
 */
import type { Processor, ProcessorContext, ValueGetter } from '../processor';
import type { TimestampExtractor } from '../record';
import type { Serde, Window } from '../serdes';
import type { StoreKind } from '../state/stores';

export type NodeKind = 'source' | 'processor' | 'sink';

export interface SourceSpec {
  topics: string[];
  key?: Serde<unknown>;
  value?: Serde<unknown>;
  timestampExtractor?: TimestampExtractor;
  /** An internal topic of the app (repartition, FK subscription...): `<app>-<name>-...`. */
  internal: boolean;
  /** Global table source: every instance reads every partition. */
  global: boolean;
}

export interface SinkSpec {
  topic: string;
  key?: Serde<unknown>;
  value?: Serde<unknown>;
  internal: boolean;
  /** Picks the partition (default: murmur2 of the key bytes, as the producer). */
  partitioner?: (key: unknown, value: unknown, partitions: number) => number | undefined;
  /** The sink writes a table: the change's new value is written (null: a tombstone). */
  fromTable?: boolean;
  /** Partition count requested for an internal topic (repartition({partitions})). */
  partitions?: number;
}

export interface NodeDef {
  name: string;
  kind: NodeKind;
  /** The DSL operation, for describe(): 'filter', 'count', 'stream-stream-join'... */
  operation: string;
  parents: string[];
  /** Stores this node reads or writes. */
  stores: string[];
  /** Named by the user (stateful nodes must be). */
  stateful: boolean;
  source?: SourceSpec;
  sink?: SinkSpec;
  create(): Processor<unknown, unknown>;
  /** Tables: reads the current value of a key, given the task's context. */
  valueGetter?(ctx: ProcessorContext): ValueGetter<unknown, unknown>;
  /** Joins: groups of parent nodes whose source topics must be co-partitioned. */
  coPartitioned?: boolean;
}

export interface StoreDef {
  name: string;
  kind: StoreKind;
  key?: Serde<unknown>;
  value?: Serde<unknown>;
  /** Window stores: window size; retention = how long windows are kept. */
  windowSizeMs?: number;
  retentionMs?: number;
  /** A persistent store (lmdb) rather than in memory. */
  persistent: boolean;
  /** Writes go to the compacted changelog `<app>-<store>-changelog`. */
  logged: boolean;
  /** Replicated to every task from a global topic; never changelogged. */
  global: boolean;
  /** Global tables: the topic the store is restored from. */
  sourceTopic?: string;
  /** DSL tables and aggregations keep each value with its timestamp ({ value, timestamp }). */
  timestamped?: boolean;
  /**
   * Windowed aggregations' window and session stores: the stream time at which a window closes
   * (end + grace, by the window type's rule). Read by the "why no output yet" view.
   */
  closesAt?: (window: Window) => number;
}
