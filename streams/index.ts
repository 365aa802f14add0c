/**
 * Tide Streams: a typed stream-processing library in the model of Kafka Streams.
 *
 *   import { Tide } from '../client';
 *   import { Serdes, TimeWindows, Suppressed } from '../streams';   // also adds tide.streams()
 *   const b = tide.streams({ applicationId: 'orders-app' });
 *   b.stream('orders', { key: Serdes.string, value: Serdes.json<Order>() })
 *     .groupByKey()
 *     .windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000))
 *     .count({ name: 'orders-per-minute' })
 *     .suppress(Suppressed.untilWindowCloses(), { name: 'final-counts' })
 *     .toStream()
 *     .to('order-counts', { key: Serdes.windowed(Serdes.string), value: Serdes.number });
 *   const topology = b.build();          // every problem of the topology, at once
 *   topology.describe().mermaid;         // the graph
 *   new TopologyTestDriver(topology, { partitions: { orders: 3 } });   // tests
 *
 * docs/streams.md is the guide. On a cluster: `const app = b.app(topology, { stateDir })`,
 * `await app.start()` (tasks over the consumer group `<applicationId>`, changelogs, restore from
 * checkpoints), `await app.close()`; it drives the same StreamTask the test driver drives.
 */
import { Tide } from '../client/index';
import { StreamsBuilder } from './builder';
import type { StreamsConfig } from './config';

declare module '../client/index' {
  interface Tide {
    /** A builder for a streams application running on this client's cluster. */
    streams(config: StreamsConfig): StreamsBuilder;
  }
}

Tide.prototype.streams = function streams(this: Tide, config: StreamsConfig): StreamsBuilder {
  return new StreamsBuilder(config, this);
};

export { StreamsBuilder } from './builder';
export type { SourceOptions } from './builder';
export type { StreamsConfig, ProcessingGuarantee } from './config';
export { StreamsError } from './errors';
export type { StreamsErrorKind } from './errors';
export { Serdes } from './serdes';
export type { Serde, KeyValueSerdes, Window, Windowed } from './serdes';
export { TimeWindows, SlidingWindows, SessionWindows, JoinWindows } from './windows';
export type { Change, KeyValue, StreamRecord, RecordOrigin, TimestampExtractor } from './record';
export { recordTimestamp } from './record';
export type {
  Processor,
  ProcessorContext,
  ProcessorSupplier,
  Cancellable,
  PunctuationType,
} from './processor';
export type { KeyValueStore, WindowStore, SessionStore, WindowEntry, StateStore } from './state/stores';
export { PersistentKeyValueStore } from './state/persistent';
export { PersistentWindowStore } from './state/persistent-window';
export { PersistentSessionStore } from './state/persistent-session';
export { KStream, BranchedKStream } from './dsl/kstream';
export type {
  StreamSerdes,
  ToOptions,
  RepartitionOptions,
  GroupedOptions,
  StreamJoinOptions,
  ProcessOptions,
} from './dsl/kstream';
export { KTable } from './dsl/ktable';
export { GlobalKTable } from './dsl/global-ktable';
export { KGroupedStream } from './dsl/kgrouped-stream';
export { KGroupedTable } from './dsl/kgrouped-table';
export { TimeWindowedKStream, SessionWindowedKStream } from './dsl/windowed-stream';
export { Suppressed } from './dsl/suppressed';
export { Stores } from './dsl/stores';
export type { Named } from './dsl/internal-builder';
export { Topology } from './topology/topology';
export type { TopologyDescription, NodeDescription } from './topology/describe';
export { mermaidOf } from './topology/describe';
export { diffTopologies, formatTopologyDiff } from './topology/diff';
export type { TopologyDiff } from './topology/diff';
export { StreamTask } from './runtime/task';
export type { RawRecord, TaskMetrics } from './runtime/task';
export { StreamsApp, DEFAULT_COMMIT_INTERVAL_MS } from './runtime/app';
export type { StreamsAppOptions, StreamsAppMetrics, StreamsAppState, TaskSnapshot } from './runtime/app';
export type { RestoreProgress } from './runtime/restore';
export { TopologyChangeError, TOPOLOGY_METADATA_KEY, parseRecordedTopology } from './runtime/topology-record';
export type { RecordedTopology } from './runtime/topology-record';
export { INSTANCE_METADATA_PREFIX, parseInstanceStatus } from './runtime/instance-status';
export type { InstanceStatus, InstanceTaskStatus } from './runtime/instance-status';
export { registerStreamsMetrics } from './runtime/prometheus';
export type { WindowStoreStatus, OpenWindow } from './runtime/window-status';
export type { GlobalTableSnapshot } from './runtime/global-tables';
export type { KeyQueryOptions, QueriedWindow } from './runtime/query/typed';
export type { QueryTlsOptions } from './runtime/query/query-tls';
export type { QueryAuthOptions } from './runtime/query/query-auth';
export { TopologyTestDriver } from './test-driver/driver';
export type { TestDriverOptions, SuppressStatus } from './test-driver/driver';
export { TestInputTopic, TestOutputTopic } from './test-driver/topics';
export type { TestRecord, PipedRecord } from './test-driver/topics';
