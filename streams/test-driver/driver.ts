/**
 * TopologyTestDriver: runs a topology in memory, deterministically, on a virtual wall clock.
 * Unlike Kafka's, topics may have any number of partitions: the driver creates one task per
 * partition of each subtopology, routes records by the producer's partitioner (murmur2 of the key
 * bytes), and carries repartition topics between subtopologies, so partition-level behaviour
 * (co-partitioning, lowest-head-timestamp-first, per-task stream time) is tested as it runs.
 *
 * Every record goes through its serdes (topics hold bytes), as it would against a cluster.
 * Switches: `maxTaskIdleMs` (wait for empty partitions before processing), `caching` (the record
 * cache: store writes and table updates held per key until a commit), `commitIntervalMs`
 * (commits on the wall clock).
 */
import { partitionForKey } from '../../client/index';
import { StreamsError } from '../errors';
import type { RecordHeader } from '../../services/common/records';
import type { Serde } from '../serdes';
import type { KeyValueStore, SessionStore, StateStore, WindowEntry, WindowStore } from '../state/stores';
import type { StoreDef } from '../topology/nodes';
import { inclusiveRange, prefixByteRange, requireKeySerde, type ByteRange } from '../state/key-range';
import type { Topology } from '../topology/topology';
import { StreamTask, type RecordErrorPolicy, type TaskMetrics } from '../runtime/task';
import { checkDeadLetterTopics, checkRecordErrorPolicy, globalTablePolicy } from '../runtime/record-errors';
import type { OutgoingRecord, RecordCollector } from '../runtime/internal-context';
import type { Held } from '../processors/suppress';
import { join } from 'node:path';
import { createStateStore } from '../state/factory';
import { DEFAULT_CACHE_MAX_BYTES, RecordCache } from '../state/record-cache';
import { MemoryTopic, TestInputTopic, TestOutputTopic, type InputSink } from './topics';
import { windowStatusOf, type WindowStoreStatus } from '../runtime/window-status';

/** What a suppress node holds in one task (TopologyTestDriver.suppressStatus). */
export interface SuppressStatus {
  taskId: string;
  streamTimeMs: number;
  /** Held keys (Windowed<K> for windowed tables), earliest due first. */
  held: { key: unknown; dueMs: number; waitingForMs: number }[];
}

export interface TestDriverOptions {
  /** Partitions per topic (sources, sinks, global topics). Topics not listed: `defaultPartitions`. */
  partitions?: Record<string, number>;
  /** Default 1. */
  defaultPartitions?: number;
  /** Virtual wall clock at start (ms). Default 0. */
  startWallClockMs?: number;
  /**
   * How long (wall clock) a task with data for some input partitions waits for the empty ones
   * before processing anyway. 0 (default): never waits, as if the empty partitions were caught up.
   */
  maxTaskIdleMs?: number;
  /**
   * The record cache in front of the DSL's table and aggregation stores, as in the runtime:
   * writes are held per key and reach the store, and downstream (latest only), at commit or when
   * the cache is full. Default false.
   */
  caching?: boolean;
  /** The record cache's budget in bytes (estimated) for all tasks. Default 10 MiB. */
  cacheMaxBytes?: number;
  /** Commits every task when the wall clock passes each interval. Default 30,000. */
  commitIntervalMs?: number;
  /**
   * Stores with key and value serdes (key-value, window and session) are kept in LMDB under
   * `<stateDir>/<task>/<store>` (the persistent stores) instead of in memory; state survives a new
   * driver on the same directory.
   */
  stateDir?: string;
  /**
   * A record the source serdes cannot read, as in the runtime: 'fail' (default: pipeInput
   * throws), 'continue' (skipped, counted in metrics().droppedRecords), or { deadLetterTopic }
   * (skipped and copied to that topic, read it with outputTopic).
   */
  deserializationErrors?: RecordErrorPolicy;
  /**
   * A record whose processing throws: the same choices. A punctuation that throws is passed over
   * under 'continue' or a dead-letter topic (counted in metrics().failedPunctuations); under
   * 'fail' the call that fired it (pipeInput, advanceWallClock) throws.
   */
  processingErrors?: RecordErrorPolicy;
}

export class TopologyTestDriver {
  private readonly topics = new Map<string, MemoryTopic>();
  private readonly tasks: StreamTask[] = [];
  private globalTask: StreamTask | undefined;
  /** topic → partition → task reading it. */
  private readonly readers = new Map<string, Map<number, StreamTask>>();
  private readonly globalStores = new Map<string, StateStore>();
  private readonly partitionCounts: Map<string, number>;
  private wallClockMs: number;
  private lastCommitMs: number;
  private readonly commitIntervalMs: number;
  private closed = false;

  constructor(
    readonly topology: Topology,
    private readonly options: TestDriverOptions = {},
  ) {
    const defaultPartitions = options.defaultPartitions ?? 1;
    this.wallClockMs = options.startWallClockMs ?? 0;
    this.lastCommitMs = this.wallClockMs;
    this.commitIntervalMs = options.commitIntervalMs ?? 30_000;
    const declared = (topic: string): number => options.partitions?.[topic] ?? defaultPartitions;
    this.partitionCounts = topology.resolvePartitions(declared);
    checkRecordErrorPolicy('deserializationErrors', options.deserializationErrors);
    checkRecordErrorPolicy('processingErrors', options.processingErrors);
    checkDeadLetterTopics(topology, options.deserializationErrors, options.processingErrors);

    const collector: RecordCollector = {
      partitionsOf: (topic) => this.topic(topic).partitionCount,
      send: (r) => this.deliver(r),
    };
    const taskOptions = {
      collector,
      wallClockMs: () => this.wallClockMs,
      caching: options.caching ?? false,
      cache: options.caching ? new RecordCache(options.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES) : undefined,
      maxTaskIdleMs: options.maxTaskIdleMs ?? 0,
      createStore: (def: StoreDef, taskId: string) => createStore(def, taskId, options.stateDir),
      globalStores: this.globalStores,
      deserializationErrors: options.deserializationErrors,
      processingErrors: options.processingErrors,
    };
    for (const def of topology.global.stores) this.globalStores.set(def.name, createStore(def));
    if (topology.global.nodes.length > 0) {
      const inputs = topology.global.topics.flatMap((topic) =>
        Array.from({ length: this.topic(topic).partitionCount }, (_, partition) => ({ topic, partition })),
      );
      this.globalTask = new StreamTask(
        {
          id: 'global',
          partition: -1,
          applicationId: topology.applicationId,
          nodes: topology.global.nodes,
          stores: [],
          inputs,
        },
        {
          ...taskOptions,
          caching: false,
          maxTaskIdleMs: 0,
          deserializationErrors: globalTablePolicy(options.deserializationErrors),
          processingErrors: undefined,
        },
      );
      for (const i of inputs) this.reader(i.topic).set(i.partition, this.globalTask);
    }
    for (const s of topology.subtopologies) {
      const count = topology.taskCount(s, this.partitionCounts);
      for (let p = 0; p < count; p++) {
        const inputs = s.sourceTopics
          .filter((t) => this.topic(t).partitionCount > p)
          .map((topic) => ({ topic, partition: p }));
        const task = new StreamTask(
          {
            id: `${s.id}_${p}`,
            partition: p,
            applicationId: topology.applicationId,
            nodes: s.nodes,
            stores: s.stores,
            inputs,
          },
          taskOptions,
        );
        this.tasks.push(task);
        for (const i of inputs) this.reader(i.topic).set(p, task);
      }
    }
  }

  inputTopic<K, V>(topic: string, key: Serde<K>, value: Serde<V>): TestInputTopic<K, V> {
    if (!this.readers.has(topic)) {
      throw new StreamsError(
        'STATE',
        `the topology does not read "${topic}" (it reads: ${[...this.readers.keys()].join(', ')})`,
      );
    }
    const sink: InputSink = { pipe: (t, records) => this.pipe(t, records) };
    return new TestInputTopic(sink, topic, key, value);
  }

  outputTopic<K, V>(topic: string, key: Serde<K>, value: Serde<V>): TestOutputTopic<K, V> {
    return new TestOutputTopic(() => this.topics.get(topic), topic, key, value);
  }

  /** Moves the virtual wall clock: wall-clock punctuations fire, idle tasks may proceed, commits happen. */
  advanceWallClock(ms: number): void {
    this.checkOpen();
    if (!Number.isFinite(ms) || ms < 0)
      throw new StreamsError('STATE', `advanceWallClock needs ms >= 0, got ${ms}`);
    this.wallClockMs += ms;
    for (const task of this.tasks) task.punctuateWallClock();
    this.runUntilQuiet();
    if (this.wallClockMs - this.lastCommitMs >= this.commitIntervalMs) this.commit();
  }

  wallClock(): number {
    return this.wallClockMs;
  }

  /** Commits every task now (flushes caches); what the flush forwards is processed before return. */
  commit(): void {
    this.checkOpen();
    this.lastCommitMs = this.wallClockMs;
    for (const task of this.tasks) task.commit();
    this.runUntilQuiet();
  }

  /** A key-value store's contents across every task (values as the DSL sees them). */
  getKeyValueStore<K, V>(
    name: string,
  ): {
    get(key: K): V | null;
    all(): [K, V][];
    /** Keys in [from, to] (null: open) across every task, in the order of the key serde's bytes. */
    range(from: K | null, to: K | null): [K, V][];
    prefixScan<P>(prefix: P, prefixSerde: Serde<P>): [K, V][];
  } {
    const def = this.storeDef(name, 'keyValue');
    const instances = this.instances(name) as KeyValueStore<K, unknown>[];
    const unwrap = (v: unknown): V => (def.timestamped ? (v as { value: V }).value : (v as V));
    const serde = (): Serde<K> => requireKeySerde(name, def.key as Serde<K> | undefined);
    const scan = (range: ByteRange): [K, V][] =>
      instances
        .flatMap((s) =>
          s.scan(range).map(([k, v]) => ({ bytes: serde().serialize(k), entry: [k, unwrap(v)] as [K, V] })),
        )
        .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
        .map((e) => e.entry);
    return {
      range: (from, to) => scan(inclusiveRange(serde(), from, to)),
      prefixScan: (prefix, prefixSerde) => scan(prefixByteRange(prefixSerde.serialize(prefix))),
      get: (key) => {
        for (const s of instances) {
          const v = s.get(key);
          if (v !== null) return unwrap(v);
        }
        return null;
      },
      all: () => instances.flatMap((s) => [...s.all()].map(([k, v]) => [k, unwrap(v)] as [K, V])),
    };
  }

  /** A window store's windows across every task, by window start. */
  getWindowStore<K, V>(
    name: string,
  ): { fetch(key: K, windowStart: number): V | null; all(): WindowEntry<K, V>[] } {
    const def = this.storeDef(name, 'window');
    const instances = this.instances(name) as WindowStore<K, unknown>[];
    const unwrap = (v: unknown): V => (def.timestamped ? (v as { value: V }).value : (v as V));
    return {
      fetch: (key, start) => {
        for (const s of instances) {
          const v = s.fetch(key, start);
          if (v !== null) return unwrap(v);
        }
        return null;
      },
      all: () =>
        instances
          .flatMap((s) => s.all().map((e) => ({ ...e, value: unwrap(e.value) })))
          .sort((a, b) => a.window.start - b.window.start),
    };
  }

  /** A session store's sessions across every task. */
  getSessionStore<K, V>(name: string): { fetch(key: K): WindowEntry<K, V>[]; all(): WindowEntry<K, V>[] } {
    const def = this.storeDef(name, 'session');
    const instances = this.instances(name) as SessionStore<K, unknown>[];
    const unwrap = (e: WindowEntry<K, unknown>): WindowEntry<K, V> => ({
      ...e,
      value: def.timestamped ? (e.value as { value: V }).value : (e.value as V),
    });
    return {
      fetch: (key) => instances.flatMap((s) => s.fetch(key).map(unwrap)),
      all: () =>
        instances.flatMap((s) => s.all().map(unwrap)).sort((a, b) => a.window.start - b.window.start),
    };
  }

  /**
   * Why a windowed aggregation has no final result yet: per task, its stream time against the
   * close time of each open window of the store (earliest first, at most `limit`), as
   * `StreamsApp.windowStatus` reports it on a cluster.
   */
  windowStatus(store: string, limit?: number): WindowStoreStatus[] {
    return windowStatusOf(this.topology, store, this.tasks, limit);
  }

  /**
   * Why a suppress node has not emitted yet: per task, its stream time and every held key with the
   * stream time at which it will be emitted. Stream time moves only with records of that task, so
   * a key waits until its own task sees a record at or after `dueMs`.
   */
  suppressStatus(name: string): SuppressStatus[] {
    const node = this.topology.nodes.get(name);
    if (!node || !node.operation.startsWith('suppress')) {
      throw new StreamsError('STORE', `"${name}" is not a suppress node`);
    }
    return this.tasks
      .filter((t) => t.stores.has(name))
      .map((t) => {
        const buffer = t.stores.get(name) as KeyValueStore<unknown, Held>;
        const held = [...buffer.all()]
          .map(([key, h]) => ({ key, dueMs: h.dueMs, waitingForMs: h.dueMs - t.metrics.streamTimeMs }))
          .sort((a, b) => a.dueMs - b.dueMs);
        return { taskId: t.id, streamTimeMs: t.metrics.streamTimeMs, held };
      });
  }

  /** Per-task metrics, and totals of what was dropped or passed over. */
  metrics(): {
    tasks: (TaskMetrics & { id: string })[];
    droppedLateRecords: number;
    droppedRecords: number;
    failedPunctuations: number;
  } {
    const tasks = this.tasks.map((t) => ({ id: t.id, ...t.metrics }));
    return {
      tasks,
      droppedLateRecords: tasks.reduce((n, t) => n + t.droppedLateRecords, 0),
      droppedRecords: tasks.reduce((n, t) => n + t.droppedRecords, 0),
      failedPunctuations: tasks.reduce((n, t) => n + t.failedPunctuations, 0),
    };
  }

  /** Task ids: `<subtopology>_<partition>`. */
  taskIds(): string[] {
    return this.tasks.map((t) => t.id);
  }

  /** Partition count of every source topic, internal ones included. */
  partitionsOf(topic: string): number {
    return this.topic(topic).partitionCount;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.globalTask?.close();
    for (const t of this.tasks) t.close();
  }

  private pipe(
    topic: string,
    records: {
      key: Buffer | null;
      value: Buffer | null;
      timestampMs?: number;
      partition?: number;
      headers: RecordHeader[];
    }[],
  ): void {
    this.checkOpen();
    for (const r of records) {
      this.deliver({
        topic,
        key: r.key,
        value: r.value,
        timestampMs: r.timestampMs ?? this.wallClockMs,
        headers: r.headers,
        partition: r.partition,
      });
    }
    this.runUntilQuiet();
  }

  /** Appends a record to its topic and hands it to the task reading that partition, if any. */
  private deliver(r: OutgoingRecord): void {
    const topic = this.topic(r.topic);
    const partition =
      r.partition ?? (r.key === null ? topic.nextRoundRobin() : partitionForKey(r.key, topic.partitionCount));
    const raw = topic.append(partition, r);
    const task = this.readers.get(r.topic)?.get(partition);
    task?.addRecords(r.topic, partition, [raw]);
  }

  /** Processes until no task can make progress (the global task first, then in task order). */
  private runUntilQuiet(): void {
    for (let progress = true; progress;) {
      progress = false;
      if ((this.globalTask?.processAvailable() ?? 0) > 0) progress = true;
      for (const task of this.tasks) if (task.processAvailable() > 0) progress = true;
    }
  }

  private topic(name: string): MemoryTopic {
    let t = this.topics.get(name);
    if (!t) {
      const n =
        this.partitionCounts.get(name) ??
        this.options.partitions?.[name] ??
        this.options.defaultPartitions ??
        1;
      t = new MemoryTopic(name, n);
      this.topics.set(name, t);
    }
    return t;
  }

  private reader(topic: string): Map<number, StreamTask> {
    let m = this.readers.get(topic);
    if (!m) this.readers.set(topic, (m = new Map()));
    return m;
  }

  private storeDef(name: string, kind: StoreDef['kind']): StoreDef {
    const def = this.topology.stores.get(name);
    if (!def)
      throw new StreamsError(
        'STORE',
        `no store named "${name}" (stores: ${[...this.topology.stores.keys()].join(', ')})`,
      );
    if (def.kind !== kind)
      throw new StreamsError('STORE', `store "${name}" is a ${def.kind} store, not a ${kind} store`);
    return def;
  }

  private instances(name: string): StateStore[] {
    const global = this.globalStores.get(name);
    if (global) return [global];
    return this.tasks.flatMap((t) => {
      const s = t.readableStore(name);
      return s ? [s] : [];
    });
  }

  private checkOpen(): void {
    if (this.closed) throw new StreamsError('STATE', 'the test driver is closed');
  }
}

function createStore(def: StoreDef, taskId?: string, stateDir?: string): StateStore {
  return createStateStore(def, stateDir ? join(stateDir, taskId ?? 'global', def.name) : undefined);
}
