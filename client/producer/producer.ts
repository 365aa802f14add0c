/**
 * The producer: partitions records, batches them per partition, and pipelines the batches to
 * partition leaders over one ProduceStream per broker. Three parts, each in its own file:
 *
 * - the accumulator (accumulator.ts): records into one open batch per partition, linger, the
 *   sticky partition, and the `maxBufferedBytes` account;
 * - the sender (sender.ts): closed batches to the leaders — in-flight limits, sequence numbers,
 *   retries in order, timeouts, a broken partition starting over;
 * - the identity (identity.ts): the producer id and epoch of an idempotent producer.
 *
 * This class is what callers see: send()/sendBatch() calls queue in call order (one waits while
 * the buffer is full, and later calls wait behind it), flush() and close().
 */
import type { Clock } from '../../services/common/clock';
import { TideError } from '../../services/common/errors';
import type { Logger } from '../../services/common/logger';
import { Cluster, type ClusterOptions } from '../cluster';
import { retry } from '../retry';
import type { BatchMetadata, ProducerRecord, RecordMetadata } from '../types';
import { RecordAccumulator } from './accumulator';
import { SendSink } from './batch';
import { Fifo } from './fifo';
import { ProducerIdentity } from './identity';
import { resolveProducerOptions, type ProducerOptions, type SendOptions } from './options';
import { toBuffer } from './record-input';
import { Sender } from './sender';
import type { Identity, Job } from './state';

export {
  DEFAULT_BATCH_BYTES,
  DEFAULT_LINGER_MS,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_PRODUCER_REQUEST_TIMEOUT_MS,
  DEFAULT_PRODUCER_RETRY,
  type ProducerOptions,
  type SendOptions,
} from './options';

/** What a transactional producer (transactional-producer.ts) changes in the plain one. */
export interface ProducerInternals {
  /** Answers the producer identity instead of InitProducerId. */
  initIdentity?: () => Promise<Identity>;
  /** A transactional producer's id (its batches are transactional, see SenderSettings). */
  transactionalId?: string;
  /** Told when a batch opens for a partition (a transactional producer notes the partitions it wrote). */
  opened?: (topic: string, partition: number) => void;
}

export class Producer {
  readonly cluster: Cluster;
  private readonly ownsCluster: boolean;
  private readonly idempotent: boolean;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly identity: ProducerIdentity;
  private readonly accumulator: RecordAccumulator;
  private readonly sender: Sender;
  private readonly queue = new Fifo<Job>();
  private pumping = false;
  private spaceWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  /** Give a Cluster to share connections, or cluster options to have the producer own one. */
  constructor(
    cluster: Cluster | ClusterOptions,
    options: ProducerOptions = {},
    internals: ProducerInternals = {},
  ) {
    this.ownsCluster = !(cluster instanceof Cluster);
    this.cluster = cluster instanceof Cluster ? cluster : new Cluster(cluster);
    const settings = resolveProducerOptions(options);
    this.idempotent = settings.idempotent;
    this.clock = options.clock ?? this.cluster.clock;
    this.logger = (options.logger ?? this.cluster.logger).child({ component: 'producer' });
    const random = options.random ?? Math.random;
    const retryOptions = settings.retry;
    this.identity = new ProducerIdentity(
      internals.initIdentity ??
        (() =>
          retry(
            () => this.cluster.withControlBroker((address) => this.cluster.calls.initProducerId(address)),
            retryOptions,
            { clock: this.clock, random },
          ).then((r): Identity => ({ producerId: r.producer_id, producerEpoch: r.producer_epoch }))),
    );
    this.accumulator = new RecordAccumulator(
      {
        batchBytes: settings.batchBytes,
        lingerMs: settings.lingerMs,
        compression: settings.compression,
        maxBufferedBytes: settings.maxBufferedBytes,
        clock: this.clock,
        random,
      },
      {
        drain: (state) => this.sender.drain(state),
        released: () => {
          this.wakeSpaceWaiters();
          this.checkIdle();
        },
        identity: () => this.identity.current,
        opened: internals.opened && ((state) => internals.opened!(state.topic, state.partition)),
      },
    );
    this.sender = new Sender(this.cluster, this.accumulator, this.identity, {
      acks: settings.acks,
      idempotent: settings.idempotent,
      maxInFlight: settings.maxInFlight,
      batchBytes: settings.batchBytes,
      maxBufferedBytes: settings.maxBufferedBytes,
      retry: retryOptions,
      requestTimeoutMs: settings.requestTimeoutMs,
      deliveryTimeoutMs: settings.deliveryTimeoutMs,
      clock: this.clock,
      logger: this.logger,
      random,
      transactionalId: internals.transactionalId,
    });
  }

  /**
   * Moves every partition to `identity` from sequence 0 (a transactional producer's epoch after
   * each transaction). Only while nothing is in flight (after a flush).
   */
  setIdentity(identity: Identity): void {
    this.identity.set(identity);
    this.accumulator.forEachState((state) => {
      state.identity = identity;
      state.nextSequence = 0;
      state.broken = false;
    });
  }

  /** Bytes accepted but not yet acknowledged (or failed). */
  get bufferedBytes(): number {
    return this.accumulator.buffered;
  }

  /** Connects and, with idempotence, obtains the producer id. Optional: send() does it lazily. */
  async connect(): Promise<void> {
    await this.cluster.connect();
    if (this.idempotent) await this.identity.ensure();
  }

  /** Sends one record; resolves once it is acknowledged per `acks`. */
  send(topic: string, record: ProducerRecord, options?: SendOptions): Promise<RecordMetadata>;
  /** Sends records; one promise for the call, with per-record partitions and offsets. */
  send(topic: string, records: readonly ProducerRecord[], options?: SendOptions): Promise<BatchMetadata>;
  send(
    topic: string,
    recordOrRecords: ProducerRecord | readonly ProducerRecord[],
    options: SendOptions = {},
  ): Promise<RecordMetadata | BatchMetadata> {
    if (Array.isArray(recordOrRecords)) return this.sendBatch(topic, recordOrRecords, options);
    return new Promise<RecordMetadata>((resolve, reject) => {
      const sink = new SendSink(topic, 1, true, resolve, null, reject);
      this.submit(this.job(topic, recordOrRecords as ProducerRecord, null, 1, sink, options));
    });
  }

  /**
   * The bulk API: records (or bare value Buffers) go in order, one promise for the whole call.
   * Per-record results are index-aligned typed arrays. Calls are appended in call order; when
   * `maxBufferedBytes` is reached the call waits (and later calls queue behind it).
   */
  sendBatch(
    topic: string,
    records: readonly (ProducerRecord | Buffer)[],
    options: SendOptions = {},
  ): Promise<BatchMetadata> {
    return new Promise<BatchMetadata>((resolve, reject) => {
      const sink = new SendSink(topic, records.length, false, null, resolve, reject);
      if (records.length > 0) this.submit(this.job(topic, null, records, records.length, sink, options));
    });
  }

  /** Resolves when the buffer has room again (for callers that pace themselves). */
  ready(): Promise<void> {
    if (this.accumulator.hasRoom && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.spaceWaiters.push(resolve));
  }

  /** Sends everything accepted so far without waiting for linger; resolves when all of it settled. */
  async flush(): Promise<void> {
    try {
      this.accumulator.beginFlush();
      await this.idle();
    } finally {
      this.accumulator.endFlush();
    }
  }

  /** Flushes, then closes the produce streams (and the cluster when the producer owns it). */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      this.sender.close();
      if (this.ownsCluster) this.cluster.close();
    }
  }

  // ---------------------------------------------------------------- accepting calls

  private job(
    topic: string,
    record: ProducerRecord | null,
    records: readonly (ProducerRecord | Buffer)[] | null,
    count: number,
    sink: SendSink,
    options: SendOptions,
  ): Job {
    return {
      topic,
      record,
      records,
      count,
      next: 0,
      partition: options.partition,
      key: options.key === undefined ? null : toBuffer(options.key),
      sink,
      awaitedPartition: undefined,
    };
  }

  private submit(job: Job): void {
    if (this.closed) {
      job.sink.fail(
        new TideError('INVALID_REQUEST', 'the producer is closed', { context: { topic: job.topic } }),
      );
      return;
    }
    if (this.queue.length === 0 && !this.pumping) {
      const blocker = this.tryJob(job);
      if (blocker === null) return;
      this.queue.push(job);
      void this.pump(blocker);
    } else {
      this.queue.push(job);
    }
  }

  /** Works through queued jobs in order, waiting on whatever blocks the head one. */
  private async pump(first: Promise<unknown>): Promise<void> {
    this.pumping = true;
    let blocker: Promise<unknown> | null = first;
    try {
      for (;;) {
        if (blocker) {
          try {
            await blocker;
          } catch (err) {
            const failed = this.queue.shift();
            failed?.sink.fail(err);
          }
        }
        const job = this.queue.peek();
        if (!job) break;
        blocker = this.tryJob(job);
        if (blocker === null) this.queue.shift();
      }
    } finally {
      this.pumping = false;
      this.checkIdle();
      this.wakeSpaceWaiters();
    }
  }

  /** Appends as much of the job as possible. Null when done (or failed); else what to wait for. */
  private tryJob(job: Job): Promise<unknown> | null {
    if (job.sink.settled) return null;
    if (this.idempotent && !this.identity.current) return this.identity.ensure();
    const meta = this.cluster.cachedTopic(job.topic);
    if (!meta) return this.cluster.topicMetadata(job.topic);
    switch (this.accumulator.append(job, meta)) {
      case 'done':
        return null;
      case 'full':
        return this.waitForSpace();
      case 'unknownPartition':
        // Partitions added to the topic reach the cache through the metadata watch, perhaps not
        // yet: refetch before failing (the job fails if the partition still does not exist).
        return this.cluster.topicWithPartition(job.topic, job.awaitedPartition!);
    }
  }

  private waitForSpace(): Promise<void> {
    return new Promise((resolve) => this.spaceWaiters.push(resolve));
  }

  private wakeSpaceWaiters(): void {
    if (!this.accumulator.hasRoom || this.spaceWaiters.length === 0) return;
    const waiters = this.spaceWaiters;
    this.spaceWaiters = [];
    for (const wake of waiters) wake();
  }

  // ---------------------------------------------------------------- idleness

  private idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.accumulator.unsettledBatches === 0 && this.queue.length === 0 && !this.pumping;
  }

  private checkIdle(): void {
    if (this.idleWaiters.length === 0 || !this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
