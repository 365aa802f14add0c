/**
 * Global tables on a cluster (Kafka Streams' global stream thread): every instance reads every
 * partition of each global table's topic into its own copy of the table's store, which every task
 * of the instance reads (stream–globalTable joins).
 *
 * Bootstrap first: `start()` resolves once each copy holds its topic up to the end offsets listed
 * when it began (the last stable offsets under exactlyOnce), and the runtime starts it before the
 * instance joins its group, so no task processes a record before the tables are loaded. Then a
 * background loop keeps reading, and a join sees the table as it is when the join runs (as in
 * Kafka: global tables are not synchronised with the streams that read them).
 *
 * The topic is the table's changelog: global stores have none. An LMDB copy (a state directory
 * and serdes) keeps `<stateDir>/global/.checkpoint` (`{ "<topic>:<partition>": <next offset> }`),
 * written at each commit once its files are flushed, so a restart reads only the tail; without a
 * complete checkpoint, or with one past the topic's end (the topic was recreated), the copy is
 * emptied and read from the start. An in-memory copy reads its topic from the start each time.
 */
import { join } from 'node:path';
import type { Consumer, Tide } from '../../client/index';
import type { ConsumerBatch, TopicPartition } from '../../client/types';
import type { Logger } from '../../services/common/logger';
import { StreamsError } from '../errors';
import { createStateStore, isPersistentStore } from '../state/factory';
import type { StateStore } from '../state/stores';
import type { StoreDef } from '../topology/nodes';
import type { GlobalPart } from '../topology/topology';
import { readCheckpoint, writeCheckpoint, type Checkpoint } from './checkpoint';
import type { RestoreProgress } from './restore';
import { StreamTask, type DroppedRecord } from './task';

/** The task id of the global tables: their directory and checkpoint under the state directory. */
export const GLOBAL_TASK_ID = 'global';

/** How often the bootstrap checks positions that records did not move (transaction markers at the end). */
const CAUGHT_UP_CHECK_MS = 100;

export interface GlobalTablesOptions {
  tide: Tide;
  applicationId: string;
  global: GlobalPart;
  partitionsOf(topic: string): number;
  readCommitted: boolean;
  stateDir?: string;
  /** Records a chunk of the global topics is processed in (the runtime's slice size). */
  sliceRecords: number;
  logger: Logger;
  onRestore?: (progress: RestoreProgress) => void;
  /** A record the table's serdes cannot read: the application's policy (globalTablePolicy). */
  deserializationErrors?: 'fail' | 'continue';
  onDropped?: (dropped: DroppedRecord) => void;
  /** The background loop failed: the application stops. */
  onError(err: Error): void;
}

/** One partition of a global topic: where the bootstrap starts and ends. */
interface GlobalPartition extends TopicPartition {
  store: string;
  from: number;
  end: number;
  /** The partition's high watermark as of its last fetched chunk (the bootstrap's end before). */
  highWatermark: number;
}

/** A global table on this instance, for metrics(). */
export interface GlobalTableSnapshot {
  store: string;
  topic: string;
  /** false while the bootstrap reads it (and after a failure or close). */
  loaded: boolean;
  /** Records of its topic applied since the instance started (the bootstrap's included). */
  recordsIn: number;
  /** Records behind its partitions' high watermarks, as of their last fetched chunks. */
  lag: number;
}

export class GlobalTables {
  /** Each global table's store, by name: what tasks read. */
  readonly stores = new Map<string, StateStore>();
  private readonly partitions: GlobalPartition[] = [];
  private readonly byPartition = new Map<string, GlobalPartition>();
  private readonly recordsIn = new Map<string, number>();
  private task?: StreamTask;
  private consumer?: Consumer;
  private loop?: Promise<void>;
  private caughtUp?: () => void;
  private failed?: (err: Error) => void;
  private checkTimer?: NodeJS.Timeout;
  private failure?: Error;
  private closed = false;
  /** The consumer has the partitions (before, a position is where the plan starts). */
  private assigned = false;

  constructor(private readonly o: GlobalTablesOptions) {}

  get enabled(): boolean {
    return this.o.global.nodes.length > 0;
  }

  /** Loaded (bootstrapped), still reading, not failed: its stores may be read. */
  get loaded(): boolean {
    return this.task !== undefined && !this.caughtUp && !this.failure && !this.closed;
  }

  /** Opens the stores and reads the topics up to their current ends; then keeps reading. */
  async start(): Promise<void> {
    if (!this.enabled) return;
    const o = this.o;
    const dir = o.stateDir;
    const inputs = o.global.topics.flatMap((topic) =>
      Array.from({ length: o.partitionsOf(topic) }, (_, partition) => ({ topic, partition })),
    );
    this.task = new StreamTask(
      {
        id: GLOBAL_TASK_ID,
        partition: -1,
        applicationId: o.applicationId,
        nodes: o.global.nodes,
        // The task owns the stores, so a chunk is processed in one write scope of each (as a task's).
        stores: o.global.stores,
        inputs,
      },
      {
        collector: {
          partitionsOf: (topic) => o.partitionsOf(topic),
          send: () => {
            throw new StreamsError('TOPOLOGY', 'a global table cannot write to topics');
          },
        },
        wallClockMs: () => Date.now(),
        caching: false,
        maxTaskIdleMs: 0,
        createStore: (def) => createStateStore(def, dir ? join(dir, GLOBAL_TASK_ID, def.name) : undefined),
        globalStores: this.stores,
        deserializationErrors: o.deserializationErrors,
        onDropped: o.onDropped,
      },
    );
    for (const [name, store] of this.task.stores) this.stores.set(name, store);
    this.consumer = o.tide.consumer({
      autoOffsetReset: 'earliest',
      isolation: o.readCommitted ? 'read_committed' : 'read_uncommitted',
      logger: o.logger,
    });
    const checkpoint = dir ? readCheckpoint(dir, GLOBAL_TASK_ID) : {};
    for (const def of o.global.stores) await this.plan(def, checkpoint);
    const bootstrapped = new Promise<void>((resolve, reject) => {
      this.caughtUp = resolve;
      this.failed = reject;
    });
    this.consumer.assign(
      this.partitions.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.from })),
    );
    this.assigned = true;
    for (const def of o.global.stores) this.progress(def.name, false);
    this.loop = this.run();
    this.checkTimer = setInterval(() => this.checkCaughtUp(), CAUGHT_UP_CHECK_MS);
    this.checkCaughtUp();
    try {
      await bootstrapped;
    } finally {
      clearInterval(this.checkTimer);
    }
  }

  /** Each global table's load state, records applied and lag (metrics()). */
  snapshot(): GlobalTableSnapshot[] {
    return this.o.global.stores.map((def) => {
      let lag = 0;
      for (const p of this.partitions) {
        if (p.store !== def.name) continue;
        lag += Math.max(0, p.highWatermark - this.positionOf(p));
      }
      return {
        store: def.name,
        topic: def.sourceTopic!,
        loaded: this.loaded,
        recordsIn: this.recordsIn.get(def.name) ?? 0,
        lag,
      };
    });
  }

  /** Writes the checkpoint of the LMDB copies (after their files are flushed); at each commit. */
  async checkpoint(): Promise<void> {
    if (this.closed) return;
    await this.writeCheckpoint();
  }

  private async writeCheckpoint(): Promise<void> {
    const dir = this.o.stateDir;
    const task = this.task;
    if (!dir || !task || this.failure || this.caughtUp) return;
    const persistent = [...this.stores.values()].filter(isPersistentStore);
    if (persistent.length === 0) return;
    const next = new Map<string, number>();
    for (const o of task.commit()) next.set(partitionKey(o), o.offset);
    await Promise.all(persistent.map((s) => s.flushed()));
    const out: Checkpoint = {};
    for (const p of this.partitions) out[partitionKey(p)] = next.get(partitionKey(p)) ?? p.from;
    writeCheckpoint(dir, GLOBAL_TASK_ID, out);
  }

  /** Stops reading; checkpoints the LMDB copies (unless it failed) and closes the stores. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.checkTimer);
    await this.consumer?.close();
    await this.loop?.catch(() => undefined);
    if (!this.failure)
      await this.writeCheckpoint().catch((err: unknown) =>
        this.o.logger.warn({ err }, 'global checkpoint failed'),
      );
    this.task?.close(); // and the stores, which it owns
  }

  /** Where each partition of the store's topic starts, and the end the bootstrap reads to. */
  private async plan(def: StoreDef, checkpoint: Checkpoint): Promise<void> {
    const topic = def.sourceTopic!;
    const store = this.stores.get(def.name)!;
    const tps = Array.from({ length: this.o.partitionsOf(topic) }, (_, partition) => ({ topic, partition }));
    const listed = await Promise.all(tps.map((tp) => this.consumer!.listOffset(tp, 'latest')));
    const persistent = isPersistentStore(store);
    let froms = tps.map((tp) => (persistent ? checkpoint[partitionKey(tp)] : undefined));
    // Files without a checkpoint for every partition, or one past an end, cannot be trusted to
    // match the topic (a key deleted meanwhile would stay): empty them and read it all.
    const trusted = froms.every((f, i) => f !== undefined && f <= listed[i].offset);
    if (persistent && !trusted) {
      store.clear();
      froms = tps.map(() => 0);
    }
    tps.forEach((tp, i) => {
      const from = Math.max(froms[i] ?? 0, listed[i].logStartOffset);
      const end = Math.max(from, listed[i].offset);
      const p = { ...tp, store: def.name, from, end, highWatermark: end };
      this.partitions.push(p);
      this.byPartition.set(partitionKey(p), p);
    });
  }

  private async run(): Promise<void> {
    try {
      for await (const batch of this.consumer!.batches()) {
        this.apply(batch);
        if (this.caughtUp) this.checkCaughtUp();
      }
      // Closed while loading: start() must not wait for a bootstrap that cannot end.
      this.failed?.(new StreamsError('STATE', 'closed while loading the global tables'));
    } catch (err) {
      if (this.closed) return;
      this.failure = err instanceof Error ? err : new Error(String(err));
      this.o.logger.error({ err: this.failure }, 'global table update failed');
      this.failed?.(this.failure);
      this.o.onError(this.failure);
    }
  }

  /** One fetched chunk through the global processors, in one write transaction per LMDB copy. */
  private apply(batch: ConsumerBatch): void {
    const p = this.byPartition.get(partitionKey(batch));
    if (p) {
      p.highWatermark = batch.highWatermark;
      this.recordsIn.set(p.store, (this.recordsIn.get(p.store) ?? 0) + batch.recordCount);
    }
    if (batch.recordCount === 0) return;
    const task = this.task!;
    task.inStoreWriteScope(() => {
      for (const slice of batch.recordSlices(this.o.sliceRecords)) {
        task.addRecords(batch.topic, batch.partition, slice);
        task.processAvailable();
      }
    });
  }

  private checkCaughtUp(): void {
    if (!this.caughtUp) return;
    const behind = this.partitions.some((p) => this.positionOf(p) < p.end);
    if (behind) return;
    const done = this.caughtUp;
    this.caughtUp = undefined;
    this.failed = undefined;
    for (const def of this.o.global.stores) {
      const { restored } = this.progress(def.name, true);
      this.o.logger.info({ store: def.name, records: restored }, 'global table loaded');
    }
    done();
  }

  /** Reports (and returns) how far the bootstrap of one store got. */
  private progress(store: string, done: boolean): RestoreProgress {
    let restored = 0;
    let total = 0;
    for (const p of this.partitions) {
      if (p.store !== store) continue;
      total += p.end - p.from;
      restored += Math.min(this.positionOf(p), p.end) - p.from;
    }
    const progress = { taskId: GLOBAL_TASK_ID, store, restored, total, done };
    this.o.onRestore?.(progress);
    return progress;
  }

  private positionOf(p: GlobalPartition): number {
    return (this.assigned ? this.consumer!.position(p) : undefined) ?? p.from;
  }
}

/** A global partition in the checkpoint: `<topic>:<partition>` (':' is never in a topic name). */
function partitionKey(tp: TopicPartition): string {
  return `${tp.topic}:${tp.partition}`;
}
