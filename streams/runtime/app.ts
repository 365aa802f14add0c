/**
 * The cluster runtime: runs a topology on a Tide cluster, driving the same StreamTask objects the
 * test driver drives, through the public client only (group consumer, producer, admin).
 *
 * - `start()` checks the source and sink topics, creates the internal topics (repartition topics
 *   sized by the topology, compacted changelogs with one partition per task), and joins the
 *   consumer group `<applicationId>` (range assignor, so co-partitioned topics' partition p goes
 *   to one member). A task `<subtopology>_<p>` exists on the instance that owns all its inputs.
 * - On assignment a new task restores its logged stores from their changelogs (from the
 *   checkpointed offset for LMDB stores, from the beginning for in-memory ones), then processes.
 * - Every `commitIntervalMs`, and on revocation and close, each task is committed: caches flush,
 *   every output and changelog record sent so far is awaited (acknowledged), and only then are the
 *   input offsets committed and the checkpoints written (at-least-once).
 * - Revoked tasks are committed and closed; lost ones (fenced) are closed without a commit.
 * - After a commit, the internal repartition topics are purged up to the committed offsets
 *   (purge.ts: Admin.DeleteRecords, at most once per repartitionPurgeIntervalMs).
 *
 * exactlyOnce: one transactional producer per instance; each commit interval is one transaction
 * holding the outputs, the changelog writes and the input offsets (sendOffsets with the member's
 * group metadata, so a zombie after a rebalance is refused). Input and restores read
 * read_committed. Checkpoints are written only when a task closes cleanly and are removed when it
 * starts, so a crash leaves no checkpoint and the LMDB store is wiped and restored in full (it may
 * hold writes of an aborted transaction).
 */
import type { Tide } from '../../client/index';
import type { GroupConsumer } from '../../client/index';
import type { Producer, TransactionalProducer } from '../../client/index';
import type { ProcessingGuarantee } from '../config';
import { randomUUID } from 'node:crypto';
import type { ConsumerBatch, TopicPartition } from '../../client/types';
import { systemClock } from '../../services/common/clock';
import { silentLogger, type Logger } from '../../services/common/logger';
import { StreamsError } from '../errors';
import { createStateStore, isPersistentStore } from '../state/factory';
import { DEFAULT_CACHE_MAX_BYTES, RecordCache } from '../state/record-cache';
import type { StateStore, StoreChange } from '../state/stores';
import type { StoreDef } from '../topology/nodes';
import type { Subtopology, Topology } from '../topology/topology';
import type { OutgoingRecord, RecordCollector } from './internal-context';
import { SinkTopicLimits } from './sink-limits';
import { StreamTask, type RecordErrorPolicy, type TaskMetrics } from './task';
import {
  checkDeadLetterTopics,
  checkRecordErrorPolicy,
  deadLetterTopics,
  PassedOverLogger,
  globalTablePolicy,
} from './record-errors';
import {
  changelogConfigs,
  changelogTopic,
  ChangelogCodec,
  DEFAULT_WINDOWED_CHANGELOG_EXTRA_RETENTION_MS,
} from './changelog';
import {
  checkpointStreamTime,
  readCheckpoint,
  removeCheckpoint,
  STREAM_TIME_KEY,
  writeCheckpoint,
} from './checkpoint';
import { restoreApplier, restoreStore, type RestoreProgress } from './restore';
import { GlobalTables, type GlobalTableSnapshot } from './global-tables';
import { DEFAULT_REPARTITION_PURGE_INTERVAL_MS, RepartitionPurger } from './purge';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { Registry } from 'prom-client';
// Operations (docs/streams.md#operations): the recorded topology, the published instance status,
// the Prometheus metrics and the "why no output yet" view.
import { checkAndRecordTopology } from './topology-record';
import {
  DEFAULT_STATUS_INTERVAL_MS,
  InstanceStatusPublisher,
  instanceKeyOf,
  instanceSnapshotOf,
} from './instance-status';
import { registerStreamsMetrics } from './prometheus';
import { windowedStoreNames, windowStatusOf, type WindowStoreStatus } from './window-status';
import type { QueryServerOptions } from './query/server';
import { DEFAULT_ACCEPTABLE_RECOVERY_LAG, DEFAULT_MAX_WARMUP_REPLICAS, Replicas } from './replicas';
import type { ChangeRelay, StoreSlot } from './standby';
import { StreamsQueries, type KeyQueryOptions } from './query/typed';
import { SendBatcher } from './send-batcher';

export const DEFAULT_COMMIT_INTERVAL_MS = 30_000;

export interface StreamsAppOptions {
  /** Default: the builder's config (tide.streams({ processingGuarantee })), else 'atLeastOnce'. */
  processingGuarantee?: ProcessingGuarantee;
  /** exactlyOnce: the coordinator aborts a transaction open longer than this (a dead instance's). Default 10 s. */
  transactionTimeoutMs?: number;
  /** exactlyOnce: the producer's transactional id. Default `<applicationId>-<random uuid>` per start. */
  transactionalId?: string;
  /** How often tasks commit (outputs acknowledged, then input offsets). Default 30 s, as Kafka's at-least-once. */
  commitIntervalMs?: number;
  /**
   * The instance's state directory. With it, stores with key and value serdes (key-value, window
   * and session) are kept in LMDB under `<stateDir>/<task>/<store>` with a checkpoint file per
   * task, so a restart restores only the changelog's tail. Without it every store is in memory and
   * restores in full.
   */
  stateDir?: string;
  /** Group session timeout (default the client's, 45 s): how long a dead instance keeps its tasks. */
  sessionTimeoutMs?: number;
  /** How long a task with data for only some inputs waits for the others (wall clock). Default 0. */
  maxTaskIdleMs?: number;
  /**
   * The record cache (Kafka Streams' statestore cache) in front of the DSL's table and
   * aggregation stores: reads and writes hit the cache; each commit (and each eviction when it is
   * full) writes the dirty entries to the store in one batch, with one changelog record and one
   * downstream update per key. Default false: every update is written and forwarded at once, so
   * output is not held for up to `commitIntervalMs` (docs/streams.md#the-record-cache).
   */
  caching?: boolean;
  /** The record cache's budget for the whole instance, in bytes (estimated). Default 10 MiB. */
  cacheMaxBytes?: number;
  /** Replication factor of the internal topics (0: the cluster default). */
  replicationFactor?: number;
  /**
   * Records of the internal repartition topics are deleted up to the committed offsets after a
   * commit (Admin.DeleteRecords), at most once per this interval (Kafka's
   * repartition.purge.interval.ms). Default 30 s; 0 = after every commit.
   */
  repartitionPurgeIntervalMs?: number;
  /**
   * Window and session stores' changelogs are `compact,delete`, deleted after the store's
   * retention plus this (Kafka's windowstore.changelog.additional.retention.ms). Default a day.
   * Applied when the changelog topic is created.
   */
  windowedChangelogExtraRetentionMs?: number;
  /** Called as stores restore (after each fetched chunk, and once done). */
  onRestore?: (progress: RestoreProgress) => void;
  /**
   * A record the source serdes cannot read (Kafka's deserialization exception handler): 'fail'
   * (default: processing stops, the record is read again after a restart), 'continue' (skip it:
   * logged, counted in droppedRecords), or { deadLetterTopic } (skip it after copying it there
   * as it was read, with `__streams.errors.*` headers; the topic must exist).
   */
  deserializationErrors?: RecordErrorPolicy;
  /**
   * A record whose processing throws (Kafka's processing exception handler): the same choices.
   * It also covers punctuations: under 'continue' or a dead-letter topic one that throws is
   * logged, counted in failedPunctuations and fires again at its next interval (no record to
   * copy anywhere); under 'fail' it stops processing.
   */
  processingErrors?: RecordErrorPolicy;
  /** Called once when the app fails (a send or commit failed); it stops processing. */
  onError?: (error: Error) => void;
  logger?: Logger;
  /** Client id of the group member (default `<applicationId>`). */
  clientId?: string;
  /**
   * Static membership: the group member's instance id (default: the pod name on Kubernetes, as
   * the client's). A restarted instance with the same id takes its tasks back without a rebalance.
   */
  instanceId?: string;
  /**
   * Start even if the topology differs from the recorded one in a way that orphans state (a
   * renamed or removed store or internal topic); the new topology is then recorded. Default false:
   * such a start fails with a TopologyChangeError showing the diff.
   */
  allowTopologyChange?: boolean;
  /** How often the instance publishes its status for `tide streams describe` (0: never). Default 10 s. */
  statusIntervalMs?: number;
  /** Standby copies of each stateful task on other instances (tailing its changelogs). Default 0. */
  numStandbys?: number;
  /** A copy this many changelog records behind (or fewer) may take its task over. Default 10,000. */
  acceptableRecoveryLag?: number;
  /** Warm-up copies in the group at once (tasks waiting to move to a caught-up instance). Default 2. */
  maxWarmupReplicas?: number;
  /** Serve interactive queries on this address (StreamsQuery over gRPC); advertised to the other instances. */
  queryServer?: QueryServerOptions;
}

export type StreamsAppState = 'created' | 'starting' | 'running' | 'closing' | 'closed' | 'failed';

export interface TaskSnapshot extends TaskMetrics {
  id: string;
  /** The task's input partitions. */
  inputs: TopicPartition[];
  /** Records behind the end of the task's input partitions, as of the last commit. */
  lag: number;
  /** Changelog records applied by the last restore, and how many there were to apply. */
  restoredRecords: number;
  restoreTotal: number;
  restoring: boolean;
}

export interface StreamsAppMetrics {
  state: StreamsAppState;
  tasks: TaskSnapshot[];
  commits: number;
  /** Totals over the tasks now running. */
  recordsIn: number;
  recordsOut: number;
  droppedLateRecords: number;
  /** Records skipped as deserializationErrors / processingErrors say. */
  droppedRecords: number;
  /** Punctuations that threw and were passed over (processingErrors other than 'fail'). */
  failedPunctuations: number;
  /** The global tables' copies on this instance. */
  globalTables: GlobalTableSnapshot[];
}

interface RunningTask {
  id: string;
  subtopology: Subtopology;
  partition: number;
  inputs: TopicPartition[];
  task: StreamTask;
  /** Next offset per changelog topic (acknowledged writes, or where the restore ended). */
  changelogNext: Map<string, number>;
  restoring: boolean;
  restoredRecords: number;
  restoreTotal: number;
  lag: number;
  /** Logged stores with their changelog relays; `from` set when a standby copy was handed over. */
  slots: Map<string, StoreSlot>;
  handedFrom: Map<string, number>;
}

const TICK_MS = 100;
/**
 * Records decoded, processed and sent on at a time from a fetched chunk (measured in
 * docs/streams.md, "Performance").
 */
export const PROCESS_SLICE_RECORDS = 1_000;

/**
 * Tasks restoring at once. Restores of several tasks overlap one's fetch with another's store
 * writes (an LMDB store's on LMDB's own thread) and the round trips each starts and ends with;
 * a bound, because each has its own consumer and fetch buffer.
 */
export const RESTORE_CONCURRENCY = 4;

export class StreamsApp {
  private readonly logger: Logger;
  /** Logs records skipped and punctuations passed over under the error policies (throttled). */
  private readonly passedOver: PassedOverLogger;
  private readonly commitIntervalMs: number;
  private partitions = new Map<string, number>();
  private producer?: Producer;
  /** max.message.bytes of the topics written to, each sink record checked against it. */
  private sinkLimits?: SinkTopicLimits;
  private txn?: TransactionalProducer;
  private inTransaction = false;
  private readonly eos: boolean;
  private member?: GroupConsumer;
  private readonly tasks = new Map<string, RunningTask>();
  /** `topic\0partition` → the task reading it. */
  private readonly readers = new Map<string, RunningTask>();
  private readonly owned = new Set<string>();
  /** Partitions paused because their task lacks another input (held back, not skipped). */
  private readonly held = new Set<string>();
  /**
   * Sends not yet settled (outputs, repartition and changelog records). Counted, not kept: holding
   * every send's promise until the next commit kept hundreds of thousands of them alive and the
   * garbage collector took a large share of a windowed count's time (bench/streams.ts).
   */
  private pendingSends = 0;
  /** Sends of the current processing stretch, handed to the producer per topic (send-batcher.ts). */
  private readonly sends = new SendBatcher(
    (topic, records) => this.sender().sendBatch(topic, records),
    (sent) => this.track(sent),
  );
  /** Bumped when unsettled sends stop mattering (an aborted transaction): their results are ignored. */
  private sendsGeneration = 0;
  private sendsSettled: (() => void)[] = [];
  private sendError: Error | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private lastCommitMs = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | undefined;
  private commits = 0;
  /** Input offsets this instance last committed (unchanged ones are not committed again). */
  private readonly committed = new Map<string, number>();
  private lagUpdating = false;
  private offsetCommit: Promise<void> | undefined;
  private purger?: RepartitionPurger;
  private _state: StreamsAppState = 'created';
  private failure: Error | undefined;
  private status: InstanceStatusPublisher | undefined;
  private readonly startedAtMs = Date.now();
  /** Names this instance in its published status and the topology record. */
  private readonly instanceKey: string;
  private replicas?: Replicas;
  /** The global tables' copies on this instance (loaded before the group is joined). */
  private globals?: GlobalTables;
  /** Interactive queries (app.queries.get(...)); see docs/streams.md. */
  readonly queries: StreamsQueries;
  /** The record cache of every task's cached stores (caching on). */
  private readonly cache?: RecordCache;

  constructor(
    private readonly tide: Tide,
    readonly topology: Topology,
    private readonly options: StreamsAppOptions = {},
  ) {
    this.logger = (options.logger ?? silentLogger()).child({
      component: 'streams',
      app: topology.applicationId,
    });
    this.commitIntervalMs = options.commitIntervalMs ?? DEFAULT_COMMIT_INTERVAL_MS;
    const guarantee = options.processingGuarantee ?? 'atLeastOnce';
    if (guarantee !== 'atLeastOnce' && guarantee !== 'exactlyOnce') {
      throw new StreamsError(
        'TOPOLOGY',
        `processingGuarantee must be 'atLeastOnce' or 'exactlyOnce', got ${JSON.stringify(guarantee)}`,
      );
    }
    this.eos = guarantee === 'exactlyOnce';
    this.instanceKey = instanceKeyOf(options.instanceId);
    if (!Number.isFinite(this.commitIntervalMs) || this.commitIntervalMs <= 0) {
      throw new StreamsError('TOPOLOGY', `commitIntervalMs must be > 0, got ${options.commitIntervalMs}`);
    }
    const standbys = options.numStandbys ?? 0;
    if (!Number.isInteger(standbys) || standbys < 0)
      throw new StreamsError('TOPOLOGY', `numStandbys must be an integer >= 0, got ${standbys}`);
    checkRecordErrorPolicy('deserializationErrors', options.deserializationErrors);
    checkRecordErrorPolicy('processingErrors', options.processingErrors);
    checkDeadLetterTopics(topology, options.deserializationErrors, options.processingErrors);
    this.passedOver = new PassedOverLogger(this.logger);
    this.queries = new StreamsQueries(() => this.replicas?.router);
    if (options.caching) this.cache = new RecordCache(options.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES);
  }

  /** This instance's query endpoint `host:port` ('' without `queryServer`). */
  get queryEndpoint(): string {
    return this.replicas?.endpoint ?? '';
  }

  /** Standby and warm-up copies kept on this instance now. */
  standbyTaskIds(): string[] {
    return this.replicas?.standbys.taskIds() ?? [];
  }

  /** Changelog records applied by this instance's standby copies so far. */
  standbyRecordsApplied(): number {
    return this.replicas?.standbys.recordsApplied ?? 0;
  }

  /** Looks a key up in a key-value store, on whichever instance holds it (see `queries`). */
  query<K, V>(store: string, key: K, options?: KeyQueryOptions): Promise<V | null> {
    return this.queries.get<K, V>(store, key, options);
  }

  get state(): StreamsAppState {
    return this._state;
  }

  get applicationId(): string {
    return this.topology.applicationId;
  }

  /** Checks topics, creates the internal ones, joins the group. Resolves once joined (tasks come with the assignment). */
  async start(): Promise<void> {
    if (this._state !== 'created')
      throw new StreamsError('STATE', `start() on an app that is ${this._state}`);
    this._state = 'starting';
    try {
      await checkAndRecordTopology(this.tide.admin(), this.topology, {
        allowTopologyChange: this.options.allowTopologyChange ?? false,
        recordedBy: `${this.options.clientId ?? this.applicationId}@${this.instanceKey}`,
        logger: this.logger,
      });
      await this.prepareTopics();
      const admin = this.tide.admin();
      this.sinkLimits = new SinkTopicLimits(
        [
          ...new Set([
            ...this.topology.subtopologies.flatMap((s) => s.sinkTopics),
            ...deadLetterTopics(this.options.deserializationErrors, this.options.processingErrors),
          ]),
        ],
        (topic) => maxMessageBytesOf(this.tide, topic),
        this.logger,
      );
      await this.sinkLimits.start();
      this.purger = new RepartitionPurger({
        deleteRecords: (partitions) => admin.deleteRecords(partitions),
        topics: new Set(this.topology.internalTopics.keys()),
        intervalMs: this.options.repartitionPurgeIntervalMs ?? DEFAULT_REPARTITION_PURGE_INTERVAL_MS,
        clock: systemClock,
        logger: this.logger,
      });
      if (this.eos) {
        this.txn = this.tide.producer({
          transactionalId: this.options.transactionalId ?? `${this.applicationId}-${randomUUID()}`,
          transactionTimeoutMs: this.options.transactionTimeoutMs ?? 10_000,
        });
        await this.txn.initTransactions();
      } else {
        this.producer = this.tide.producer({ acks: 'all' });
      }
      // Global tables load before the group is joined: no task reads one that is not there yet.
      this.globals = new GlobalTables({
        tide: this.tide,
        applicationId: this.applicationId,
        global: this.topology.global,
        partitionsOf: (topic) => this.partitionsOf(topic),
        readCommitted: this.eos,
        stateDir: this.options.stateDir,
        sliceRecords: PROCESS_SLICE_RECORDS,
        logger: this.logger,
        onRestore: this.options.onRestore,
        deserializationErrors: globalTablePolicy(this.options.deserializationErrors),
        onDropped: this.passedOver.dropped,
        onError: (err) => this.fail(err),
      });
      await this.globals.start();
      const sources = [...new Set(this.topology.subtopologies.flatMap((s) => s.sourceTopics))];
      this.replicas = this.createReplicas();
      await this.replicas.start();
      this.member = this.tide.consumer({
        ...this.replicas.groupOptions(),
        groupId: this.applicationId,
        clientId: this.options.clientId ?? this.applicationId,
        ...(this.options.instanceId !== undefined ? { instanceId: this.options.instanceId } : {}),
        autoCommit: false,
        autoOffsetReset: 'earliest',
        isolation: this.eos ? 'read_committed' : 'read_uncommitted',
        sessionTimeoutMs: this.options.sessionTimeoutMs,
        logger: this.options.logger,
        onAssigned: (tps) => this.onAssigned(tps),
        onRevoked: (tps) => this.onRevoked(tps),
        onLost: (tps) => this.onLost(tps),
      });
      this.replicas.attach(this.member);
      this.member.subscribe(sources);
      this.loop = this.run();
      this.timer = setInterval(() => void this.tick(), Math.min(TICK_MS, this.commitIntervalMs));
      this._state = 'running';
      this.startStatus();
    } catch (err) {
      this._state = 'failed';
      throw err;
    }
  }

  /** Commits and closes every task (flush, checkpoint), leaves the group. */
  async close(): Promise<void> {
    if (this._state === 'closed' || this._state === 'closing') return;
    const failed = this._state === 'failed';
    this._state = 'closing';
    if (this.timer) clearInterval(this.timer);
    await this.status?.close();
    // Leaving the group revokes every partition: onRevoked commits and closes the tasks.
    await this.member?.close();
    await this.loop?.catch(() => undefined);
    await this.withLock(async () => {
      for (const rt of [...this.tasks.values()]) this.closeTask(rt);
    });
    if (this.inTransaction) await this.txn?.abortTransaction().catch(() => undefined);
    await this.globals?.close();
    await this.purger?.close();
    this.sinkLimits?.close();
    await this.replicas?.close();
    await this.producer?.close().catch(() => undefined);
    await this.txn?.close().catch(() => undefined);
    this._state = failed ? 'failed' : 'closed';
  }

  /** Per-task metrics now. */
  metrics(): StreamsAppMetrics {
    const tasks = [...this.tasks.values()].map((rt) => ({
      id: rt.id,
      inputs: rt.inputs,
      ...rt.task.metrics,
      lag: rt.lag,
      restoredRecords: rt.restoredRecords,
      restoreTotal: rt.restoreTotal,
      restoring: rt.restoring,
    }));
    return {
      state: this._state,
      tasks,
      commits: this.commits,
      recordsIn: tasks.reduce((n, t) => n + t.recordsIn, 0),
      recordsOut: tasks.reduce((n, t) => n + t.recordsOut, 0),
      droppedLateRecords: tasks.reduce((n, t) => n + t.droppedLateRecords, 0),
      droppedRecords: tasks.reduce((n, t) => n + t.droppedRecords, 0),
      failedPunctuations: tasks.reduce((n, t) => n + t.failedPunctuations, 0),
      globalTables: this.globals?.snapshot() ?? [],
    };
  }

  /**
   * "Why no output yet?" for a windowed aggregation's store: per task on this instance, its
   * stream time against the close time of each open window (earliest first, at most `limit`,
   * default 20). A final result (and suppress's emission) waits until the task's own stream time
   * reaches the window's close time. STORE error for a store that is not windowed.
   */
  windowStatus(store: string, limit?: number): WindowStoreStatus[] {
    return windowStatusOf(
      this.topology,
      store,
      [...this.tasks.values()].map((rt) => rt.task),
      limit,
    );
  }

  /** Names of the topology's windowed aggregation stores (those `windowStatus` reports). */
  windowedStores(): string[] {
    return windowedStoreNames(this.topology);
  }

  /**
   * Adds this app's metrics (per task: records in/out, lag, stream time, dropped late records,
   * restore progress; per window store: open windows) to a prom-client registry, read at scrape
   * time. Returns a function that removes them.
   */
  registerMetrics(registry: Registry): () => void {
    return registerStreamsMetrics(registry, this);
  }

  /** The group member id ('' until joined). */
  get memberId(): string {
    return this.member?.memberId ?? '';
  }

  /** Task ids running on this instance. */
  taskIds(): string[] {
    return [...this.tasks.keys()].sort();
  }

  /** The error that stopped the app, if any. */
  error(): Error | undefined {
    return this.failure;
  }

  /** Commits every task now (as the interval does). */
  commit(): Promise<void> {
    return this.withLock(() => this.commitTasks([...this.tasks.values()]));
  }

  private startStatus(): void {
    const intervalMs = this.options.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS;
    if (intervalMs <= 0) return;
    this.status = new InstanceStatusPublisher({
      admin: this.tide.admin(),
      applicationId: this.applicationId,
      instance: this.instanceKey,
      intervalMs,
      logger: this.logger,
      snapshot: () =>
        instanceSnapshotOf(this, {
          clientId: this.options.clientId ?? this.applicationId,
          startedAtMs: this.startedAtMs,
        }),
    });
    this.status.start();
  }

  private createReplicas(): Replicas {
    return new Replicas({
      tide: this.tide,
      topology: this.topology,
      partitions: () => this.partitions,
      readCommitted: this.eos,
      stateDir: this.options.stateDir,
      logger: this.logger,
      placement: {
        numStandbys: this.options.numStandbys ?? 0,
        acceptableRecoveryLag: this.options.acceptableRecoveryLag ?? DEFAULT_ACCEPTABLE_RECOVERY_LAG,
        maxWarmupReplicas: this.options.maxWarmupReplicas ?? DEFAULT_MAX_WARMUP_REPLICAS,
      },
      queryServer: this.options.queryServer,
      createStore: standbyStoreFactory(this.options.stateDir),
      localStore: (taskId, store) => {
        const rt = this.tasks.get(taskId);
        if (!rt || rt.restoring || this._state !== 'running' || this.failure) return undefined;
        return rt.task.readableStore(store);
      },
      globalStore: (store) => {
        if (this._state !== 'running' || this.failure || !this.globals?.loaded) return undefined;
        return this.globals.stores.get(store);
      },
      activeTasks: () => [...this.tasks.keys()],
    });
  }

  // ---------------------------------------------------------------- topics

  private async prepareTopics(): Promise<void> {
    const admin = this.tide.admin();
    const sinks = new Set([
      ...this.topology.subtopologies.flatMap((s) => s.sinkTopics),
      ...deadLetterTopics(this.options.deserializationErrors, this.options.processingErrors),
    ]);
    const external = new Set([...this.topology.externalSourceTopics(), ...sinks]);
    for (const t of this.topology.internalTopics.keys()) external.delete(t);
    const existing = new Map<string, number>();
    await Promise.all(
      [...external].map(async (topic) => {
        const n = await partitionCount(this.tide, topic);
        if (n !== undefined) existing.set(topic, n);
      }),
    );
    const missingSinks = [...sinks].filter((t) => !this.topology.internalTopics.has(t) && !existing.has(t));
    if (missingSinks.length > 0) {
      throw new StreamsError(
        'TOPOLOGY',
        `output topic(s) ${missingSinks.join(', ')} do not exist: create them before starting the application`,
      );
    }
    this.partitions = this.topology.resolvePartitions((t) => existing.get(t));
    for (const [t, n] of existing) this.partitions.set(t, n);
    const rf = this.options.replicationFactor ?? 0;
    const creations: { name: string; partitions: number; configs: Record<string, string> }[] = [];
    for (const t of this.topology.internalTopics.keys()) {
      creations.push({ name: t, partitions: this.partitions.get(t)!, configs: {} });
    }
    for (const s of this.topology.subtopologies) {
      const tasks = this.topology.taskCount(s, this.partitions);
      for (const def of s.stores) {
        if (!def.logged) continue;
        const name = changelogTopic(this.applicationId, def.name);
        const extra =
          this.options.windowedChangelogExtraRetentionMs ?? DEFAULT_WINDOWED_CHANGELOG_EXTRA_RETENTION_MS;
        creations.push({ name, partitions: tasks, configs: changelogConfigs(def, extra) });
        this.partitions.set(name, tasks);
      }
    }
    for (const c of creations) {
      try {
        await admin.createTopic(c.name, {
          partitions: c.partitions,
          replicationFactor: rf,
          configs: c.configs,
        });
        this.logger.info({ topic: c.name, partitions: c.partitions }, 'internal topic created');
      } catch (err) {
        if ((err as { code?: string }).code !== 'TOPIC_ALREADY_EXISTS') throw err;
        const n = await partitionCount(this.tide, c.name);
        if (n !== c.partitions) {
          throw new StreamsError(
            'CO_PARTITIONING',
            `internal topic ${c.name} has ${n} partitions, the topology needs ${c.partitions}: ` +
              `delete it (the application's state for it is lost) or keep the source topics' partition counts`,
          );
        }
      }
    }
  }

  // ---------------------------------------------------------------- the processing loop

  private async run(): Promise<void> {
    try {
      // A fetched chunk at a time: one lock, one await and one commit check per chunk instead of
      // per record (the per-record iteration's promises were a third of the app's allocations).
      for await (const batch of this.member!.batches()) {
        await this.withLock(() => this.handle(batch));
        if (this.failure) break;
      }
    } catch (err) {
      this.fail(err);
    }
  }

  private async handle(batch: ConsumerBatch): Promise<void> {
    if (this.failure || batch.recordCount === 0) return;
    const key = tpKey(batch.topic, batch.partition);
    const rt = this.readers.get(key);
    if (!rt || rt.restoring) {
      // Its task is not complete here (another input is elsewhere): hold the partition at this chunk.
      const tp = { topic: batch.topic, partition: batch.partition };
      this.member!.seek(tp, batch.records[0].offset);
      this.member!.pause([tp]);
      this.held.add(key);
      return;
    }
    // Backpressure: the producer's buffer is full, or its calls queue behind one that waits (for its
    // identity, for metadata). Processing more would only pile records up in that queue.
    await this.sender().ready();
    if (this.failure) return;
    // A slice at a time, its outputs handed to the producer before the next is built, so that the
    // objects of a record (decoded, deserialized, queued, sent) die young (ConsumerBatch.recordSlices).
    const task = rt.task;
    this.reportingFailedRecord(task, () =>
      task.inStoreWriteScope(() => {
        for (const slice of batch.recordSlices(PROCESS_SLICE_RECORDS)) {
          task.addRecords(batch.topic, batch.partition, slice);
          task.processAvailable();
          this.sends.flush();
        }
      }),
    );
    await this.maybeCommit();
  }

  private async tick(): Promise<void> {
    if (this._state !== 'running' || this.failure) return;
    await this.withLock(async () => {
      for (const rt of this.tasks.values()) {
        if (rt.restoring) continue;
        this.reportingFailedRecord(rt.task, () =>
          rt.task.inStoreWriteScope(() => {
            rt.task.punctuateWallClock();
            while (rt.task.process());
          }),
        );
      }
      await this.maybeCommit();
    }).catch((err: unknown) => this.fail(err));
  }

  private async maybeCommit(): Promise<void> {
    if (Date.now() - this.lastCommitMs < this.commitIntervalMs) return;
    // An offset commit still in flight (the coordinator is slow, a rebalance is under way): the
    // next interval commits the later offsets; processing does not wait for it.
    if (this.offsetCommit) return;
    await this.commitTasks([...this.tasks.values()]);
  }

  /**
   * At-least-once commit: flush the tasks, wait until every record sent so far (outputs,
   * repartition and changelog records) is acknowledged, then commit the input offsets, then write
   * the checkpoints. A failed send fails the app before anything is committed.
   */
  private async commitTasks(list: RunningTask[], closing = false): Promise<void> {
    this.lastCommitMs = Date.now();
    const ready = list.filter((rt) => !rt.restoring);
    const offsets: (TopicPartition & { offset: number })[] = [];
    for (const rt of ready) {
      for (const o of rt.task.commit()) {
        if (this.committed.get(tpKey(o.topic, o.partition)) !== o.offset) offsets.push(o);
      }
    }
    await this.drainSends();
    if (this.eos) {
      await this.commitTransaction(offsets);
      for (const o of offsets) this.committed.set(tpKey(o.topic, o.partition), o.offset);
      this.purger?.committed(offsets);
    } else if (offsets.length > 0) {
      // The outputs are acknowledged: the offsets may be committed. Processing goes on meanwhile
      // (a group commit can wait out a rebalance); revocation and close wait for it.
      const commit = this.member!.commit(offsets).then(
        () => {
          for (const o of offsets) this.committed.set(tpKey(o.topic, o.partition), o.offset);
          this.purger?.committed(offsets);
        },
        (err: unknown) => this.logger.warn({ err }, 'offset commit failed; the next one retries'),
      );
      this.offsetCommit = commit.finally(() => (this.offsetCommit = undefined));
      if (closing) await this.offsetCommit;
    }
    this.commits++;
    // Under exactlyOnce a checkpoint is trusted only after a clean close (see the file comment).
    if (!this.eos || closing) for (const rt of ready) await this.checkpoint(rt);
    // Global copies hold committed records only (read_committed under exactlyOnce): always safe.
    await this.globals?.checkpoint();
    if (!this.lagUpdating && offsets.length > 0) {
      this.lagUpdating = true;
      void this.updateLag(ready, offsets).finally(() => (this.lagUpdating = false));
    }
  }

  private async commitTransaction(offsets: (TopicPartition & { offset: number })[]): Promise<void> {
    const txn = this.txn!;
    if (!this.inTransaction && offsets.length === 0) return;
    this.begin();
    try {
      await txn.sendOffsets(this.member!.groupMetadata(), offsets);
      await txn.commitTransaction();
    } catch (err) {
      await txn.abortTransaction().catch(() => undefined);
      throw err;
    } finally {
      this.inTransaction = false;
    }
  }

  /** exactlyOnce: opens the interval's transaction before its first record. */
  private begin(): void {
    if (!this.eos || this.inTransaction) return;
    this.txn!.beginTransaction();
    this.inTransaction = true;
  }

  private async drainSends(): Promise<void> {
    this.sends.flush();
    // Sends made while waiting are waited for too: the count reaches 0 only once all settled.
    if (this.pendingSends > 0) await new Promise<void>((resolve) => this.sendsSettled.push(resolve));
    if (this.sendError) throw this.sendError;
  }

  private sendSettled(generation: number): void {
    if (generation !== this.sendsGeneration || --this.pendingSends > 0) return;
    const waiters = this.sendsSettled;
    this.sendsSettled = [];
    for (const wake of waiters) wake();
  }

  /** Forgets unsettled sends (their transaction was aborted). */
  private forgetSends(): void {
    this.sends.clear();
    this.sendsGeneration++;
    this.pendingSends = 0;
    this.sendError = undefined;
    const waiters = this.sendsSettled;
    this.sendsSettled = [];
    for (const wake of waiters) wake();
  }

  private async checkpoint(rt: RunningTask): Promise<void> {
    const dir = this.options.stateDir;
    if (!dir) return;
    const checkpoint: Record<string, number> = {};
    for (const def of rt.subtopology.stores) {
      const store = rt.task.stores.get(def.name);
      if (!def.logged || !store || !isPersistentStore(store)) continue;
      await store.flushed();
      const topic = changelogTopic(this.applicationId, def.name);
      const next = rt.changelogNext.get(topic);
      if (next !== undefined) checkpoint[topic] = next;
    }
    if (Object.keys(checkpoint).length === 0) return;
    if (rt.task.metrics.streamTimeMs >= 0) checkpoint[STREAM_TIME_KEY] = rt.task.metrics.streamTimeMs;
    writeCheckpoint(dir, rt.id, checkpoint);
  }

  private async updateLag(
    list: RunningTask[],
    offsets: (TopicPartition & { offset: number })[],
  ): Promise<void> {
    const committed = new Map(offsets.map((o) => [tpKey(o.topic, o.partition), o.offset]));
    const consumer = this.member?.consumer;
    if (!consumer) return;
    for (const rt of list) {
      let lag = 0;
      for (const tp of rt.inputs) {
        const at = committed.get(tpKey(tp.topic, tp.partition));
        if (at === undefined) continue;
        try {
          lag += Math.max(0, (await consumer.listOffset(tp, 'latest')).offset - at);
        } catch {
          return; // metrics only: the next commit tries again
        }
      }
      rt.lag = lag;
    }
  }

  // ---------------------------------------------------------------- rebalance

  private async onAssigned(tps: TopicPartition[]): Promise<void> {
    for (const tp of tps) this.owned.add(tpKey(tp.topic, tp.partition));
    const fresh: RunningTask[] = [];
    for (const s of this.topology.subtopologies) {
      const count = this.topology.taskCount(s, this.partitions);
      for (let p = 0; p < count; p++) {
        const id = `${s.id}_${p}`;
        if (this.tasks.has(id)) continue;
        const inputs = s.sourceTopics
          .filter((t) => (this.partitions.get(t) ?? 0) > p)
          .map((topic) => ({ topic, partition: p }));
        if (!inputs.every((tp) => this.owned.has(tpKey(tp.topic, tp.partition)))) continue;
        fresh.push(this.createTask(s, p, inputs));
      }
    }
    for (const rt of fresh) {
      this.tasks.set(rt.id, rt);
      for (const tp of rt.inputs) this.readers.set(tpKey(tp.topic, tp.partition), rt);
    }
    // Restores run here, before the group delivers any record of the new partitions; a few tasks
    // at a time, so one's fetches overlap another's store writes (and the round trips of each).
    const limit = pLimit(RESTORE_CONCURRENCY);
    await Promise.all(fresh.map((rt) => limit(() => (this.failure ? undefined : this.restore(rt)))));
    const release = [...this.held].filter((k) => this.readers.get(k)?.restoring === false);
    if (release.length > 0) {
      for (const k of release) this.held.delete(k);
      this.member?.resume(release.map(tpOf));
    }
    if (fresh.length > 0) this.logger.info({ tasks: fresh.map((t) => t.id) }, 'tasks assigned');
    if (fresh.length > 0) this.replicas?.tasksChanged();
  }

  private async onRevoked(tps: TopicPartition[]): Promise<void> {
    await this.withLock(async () => {
      const affected = this.tasksOf(tps);
      let committed = true;
      try {
        await this.commitTasks(affected, true);
      } catch (err) {
        committed = false;
        this.logger.warn(
          { err },
          'commit before revocation failed; the next owner re-reads from the last commit',
        );
      }
      // Committed: the stores hold exactly what the changelogs do, so they stay as a standby copy.
      for (const rt of affected) this.closeTask(rt, committed && this._state === 'running');
      for (const tp of tps) this.forget(tp);
      // exactlyOnce: the failed transaction was aborted, so the other tasks' state is ahead of it.
      if (this.eos && !committed) await this.abortAndRevive();
      if (affected.length > 0) this.logger.info({ tasks: affected.map((t) => t.id) }, 'tasks revoked');
    });
  }

  private async onLost(tps: TopicPartition[]): Promise<void> {
    await this.withLock(async () => {
      const affected = this.tasksOf(tps);
      for (const rt of affected) this.closeTask(rt);
      for (const tp of tps) this.forget(tp);
      if (this.eos && this.inTransaction) await this.abortAndRevive();
      if (affected.length > 0)
        this.logger.warn({ tasks: affected.map((t) => t.id) }, 'tasks lost (not committed)');
    });
  }

  /**
   * exactlyOnce, after a transaction was aborted (partitions lost mid-transaction, a failed
   * commit): every remaining task's stores hold writes that never happened. They are closed,
   * created again from their changelogs (LMDB wiped first), and their inputs go back to the
   * committed offsets.
   */
  private async abortAndRevive(): Promise<void> {
    this.forgetSends();
    if (this.inTransaction) await this.txn!.abortTransaction().catch(() => undefined);
    this.inTransaction = false;
    const survivors = [...this.tasks.values()];
    for (const rt of survivors) this.closeTask(rt);
    const inputs = survivors.flatMap((rt) => rt.inputs);
    const committed = inputs.length > 0 ? await this.member!.committed(inputs) : [];
    for (const rt of survivors) {
      const fresh = this.createTask(rt.subtopology, rt.partition, rt.inputs);
      this.tasks.set(fresh.id, fresh);
      for (const tp of fresh.inputs) this.readers.set(tpKey(tp.topic, tp.partition), fresh);
      await this.restore(fresh);
    }
    for (const c of committed) {
      this.member!.seek({ topic: c.topic, partition: c.partition }, Math.max(0, c.offset));
      this.committed.delete(tpKey(c.topic, c.partition));
    }
  }

  private forget(tp: TopicPartition): void {
    const key = tpKey(tp.topic, tp.partition);
    this.owned.delete(key);
    this.held.delete(key);
    this.committed.delete(key);
  }

  private tasksOf(tps: TopicPartition[]): RunningTask[] {
    const keys = new Set(tps.map((tp) => tpKey(tp.topic, tp.partition)));
    return [...this.tasks.values()].filter((rt) =>
      rt.inputs.some((tp) => keys.has(tpKey(tp.topic, tp.partition))),
    );
  }

  private closeTask(rt: RunningTask, keepAsStandby = false): void {
    const keep = keepAsStandby && !rt.restoring && this.replicas !== undefined;
    rt.task.close(keep);
    if (keep) {
      for (const [name, store] of rt.task.stores) if (!rt.slots.has(name)) store.close();
      const slots = [...rt.slots.values()].map((slot) => ({
        ...slot,
        position: rt.changelogNext.get(changelogTopic(this.applicationId, slot.def.name)) ?? slot.position,
        streamTimeMs: rt.task.metrics.streamTimeMs,
      }));
      this.replicas!.adopt(rt.id, slots);
    }
    this.tasks.delete(rt.id);
    for (const tp of rt.inputs) {
      const key = tpKey(tp.topic, tp.partition);
      if (this.readers.get(key) === rt) this.readers.delete(key);
    }
  }

  // ---------------------------------------------------------------- tasks and state

  private createTask(s: Subtopology, partition: number, inputs: TopicPartition[]): RunningTask {
    const id = `${s.id}_${partition}`;
    const holder: { rt?: RunningTask } = {};
    const codecs = new Map<string, ChangelogCodec>();
    // A standby copy of this task here: its stores carry on, restored only from where it got to.
    const handed = this.replicas?.standbys.release(id);
    const slots = new Map<string, StoreSlot>();
    const collector: RecordCollector = {
      partitionsOf: (topic) => this.partitionsOf(topic),
      send: (r) => this.send(r),
    };
    const task = new StreamTask(
      { id, partition, applicationId: this.applicationId, nodes: s.nodes, stores: s.stores, inputs },
      {
        collector,
        wallClockMs: () => Date.now(),
        caching: this.options.caching ?? false,
        cache: this.cache,
        maxTaskIdleMs: this.options.maxTaskIdleMs ?? 0,
        globalStores: this.globals?.stores ?? new Map(),
        deserializationErrors: this.options.deserializationErrors,
        processingErrors: this.options.processingErrors,
        onDropped: this.passedOver.dropped,
        onPunctuationFailed: this.passedOver.punctuationFailed,
        createStore: (def) => {
          if (!def.logged) return createStore(def, id, this.options.stateDir);
          const codec = new ChangelogCodec(def);
          codecs.set(def.name, codec);
          const topic = changelogTopic(this.applicationId, def.name);
          // One acknowledgement callback per store, shared by its records (not a closure each).
          const acked = (offset: number): void => {
            const rt = holder.rt;
            if (rt && offset + 1 > (rt.changelogNext.get(topic) ?? 0))
              rt.changelogNext.set(topic, offset + 1);
          };
          const log = (change: StoreChange): void => {
            const rt = holder.rt;
            if (!rt || rt.restoring) return;
            this.logChange(rt, topic, codec, change, acked);
          };
          const copy = handed?.get(def.name);
          if (copy) {
            copy.relay.fn = log;
            slots.set(def.name, copy);
            return copy.store;
          }
          const relay: ChangeRelay = { fn: log };
          const store = createStore(def, id, this.options.stateDir, (change) => relay.fn?.(change));
          slots.set(def.name, { def, store, relay, position: 0, streamTimeMs: -1 });
          return store;
        },
      },
    );
    const rt: RunningTask = {
      id,
      subtopology: s,
      partition,
      inputs,
      task,
      changelogNext: new Map(),
      restoring: true,
      restoredRecords: 0,
      restoreTotal: 0,
      lag: 0,
      slots,
      handedFrom: new Map(
        [...(handed?.values() ?? [])].map((c) => [
          changelogTopic(this.applicationId, c.def.name),
          c.position,
        ]),
      ),
    };
    for (const c of handed?.values() ?? []) if (!slots.has(c.def.name)) c.store.close();
    holder.rt = rt;
    return rt;
  }

  private async restore(rt: RunningTask): Promise<void> {
    const dir = this.options.stateDir;
    const checkpoint = dir ? readCheckpoint(dir, rt.id) : {};
    // exactlyOnce: from here the local files may run ahead of any commit; a crash must not trust them.
    if (dir && this.eos) removeCheckpoint(dir, rt.id);
    rt.restoredRecords = 0;
    rt.restoreTotal = 0;
    // Stream time goes on from where it was: the checkpoint's (or the standby copy's), raised by
    // every changelog record read (each carries its writer's stream time).
    let streamTimeMs = -1;
    try {
      for (const def of rt.subtopology.stores) {
        if (!def.logged) continue;
        const store = rt.task.stores.get(def.name)!;
        const topic = changelogTopic(this.applicationId, def.name);
        const persistent = isPersistentStore(store);
        const handedFrom = rt.handedFrom.get(topic);
        const fromCheckpoint = handedFrom === undefined && persistent ? checkpoint[topic] : undefined;
        const from = handedFrom ?? fromCheckpoint ?? 0;
        if (handedFrom === undefined && persistent && this.eos && checkpoint[topic] === undefined)
          store.clear();
        if (handedFrom !== undefined)
          streamTimeMs = Math.max(streamTimeMs, rt.slots.get(def.name)?.streamTimeMs ?? -1);
        if (fromCheckpoint !== undefined)
          streamTimeMs = Math.max(streamTimeMs, checkpointStreamTime(checkpoint));
        const result = await restoreStore({
          tide: this.tide,
          tp: { topic, partition: rt.partition },
          from,
          readCommitted: this.eos,
          apply: restoreApplier(store, new ChangelogCodec(def)),
          reset: () => {
            if (!persistent) return;
            this.logger.warn(
              { task: rt.id, store: def.name, from, topic },
              'checkpoint past the changelog end: store emptied',
            );
            store.clear();
          },
          onProgress: (restored, total) => {
            this.options.onRestore?.({ taskId: rt.id, store: def.name, restored, total, done: false });
          },
        });
        streamTimeMs = Math.max(streamTimeMs, result.maxTimestampMs);
        rt.changelogNext.set(topic, result.end);
        rt.restoredRecords += result.restored;
        rt.restoreTotal += result.total;
        this.options.onRestore?.({
          taskId: rt.id,
          store: def.name,
          restored: result.restored,
          total: result.total,
          done: true,
        });
        this.logger.info({ task: rt.id, store: def.name, from, records: result.restored }, 'store restored');
      }
    } catch (err) {
      this.fail(err);
      throw err;
    }
    rt.task.restoreStreamTime(streamTimeMs);
    rt.restoring = false;
  }

  /** Sends a store write to its changelog; `acked` moves the task's changelog position on. */
  private logChange(
    rt: RunningTask,
    topic: string,
    codec: ChangelogCodec,
    change: StoreChange,
    acked: (offset: number) => void,
  ): void {
    const { key, value } = codec.encode(change);
    this.begin();
    // The record carries the task's stream time, so a restore can go on from it (restore.ts).
    const timestampMs = Math.max(0, rt.task.metrics.streamTimeMs);
    this.sends.add(topic, { key, value, partition: rt.partition, timestampMs }, acked);
  }

  /** A sink's record goes to the producer as it is (its extra `topic` field is not read there). */
  private send(r: OutgoingRecord): void {
    // Before anything is queued: a record its topic cannot take is the processing error of the
    // record that produced it, not a producer failure after the fact.
    this.sinkLimits?.check(r);
    this.begin();
    this.sends.add(r.topic, r);
  }

  private sender(): Producer | TransactionalProducer {
    return (this.txn ?? this.producer)!;
  }

  private track(sent: Promise<unknown>): void {
    const generation = this.sendsGeneration;
    this.pendingSends++;
    sent.then(
      () => this.sendSettled(generation),
      (err: unknown) => {
        if (generation === this.sendsGeneration)
          this.sendError ??= err instanceof Error ? err : new Error(String(err));
        this.sendSettled(generation);
      },
    );
  }

  /** Runs `fn`; when a record's processing throws, logs which record before the error goes on. */
  private reportingFailedRecord(task: StreamTask, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      const at = task.failedAt;
      const punctuation = task.failedPunctuation;
      if (at) {
        this.logger.error(
          { task: task.id, ...at, err },
          "processing a record failed; set processingErrors to 'continue' or { deadLetterTopic } to skip such records",
        );
      } else if (punctuation) {
        this.logger.error(
          { task: task.id, node: punctuation.node, punctuation: punctuation.type, err },
          "a punctuation failed; set processingErrors to 'continue' or { deadLetterTopic } to pass over failing punctuations",
        );
      }
      throw err;
    }
  }

  private partitionsOf(topic: string): number {
    const n = this.partitions.get(topic);
    if (n === undefined) throw new StreamsError('STATE', `no partition count known for topic ${topic}`);
    return n;
  }

  private withLock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private fail(err: unknown): void {
    if (this.failure) return;
    const error = err instanceof Error ? err : new Error(String(err));
    this.failure = error;
    if (this._state === 'running' || this._state === 'starting') this._state = 'failed';
    this.logger.error({ err: error }, 'streams app failed: processing stopped');
    this.options.onError?.(error);
  }
}

function createStore(
  def: StoreDef,
  taskId: string,
  stateDir: string | undefined,
  onChange?: (change: StoreChange) => void,
): StateStore {
  // With a state directory, stores with serdes are LMDB stores (state/factory.ts).
  return createStateStore(def, stateDir ? join(stateDir, taskId, def.name) : undefined, onChange);
}

/** Store factory of the standby copies: the tasks' factory, with the copy's changelog relay. */
function standbyStoreFactory(stateDir: string | undefined) {
  return (def: StoreDef, taskId: string, onChange: (change: StoreChange) => void): StateStore =>
    createStore(def, taskId, stateDir, onChange);
}

async function maxMessageBytesOf(tide: Tide, topic: string): Promise<number | undefined> {
  const d = await tide.admin().describeTopic(topic);
  const value = Number(d.configs.find((c) => c.name === 'max.message.bytes')?.value);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

async function partitionCount(tide: Tide, topic: string): Promise<number | undefined> {
  try {
    const d = await tide.admin().describeTopic(topic);
    return d.topic.partitions.length;
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('UNKNOWN_TOPIC')) return undefined;
    throw err;
  }
}

function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

function tpOf(key: string): TopicPartition {
  const i = key.lastIndexOf('\u0000');
  return { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) };
}
