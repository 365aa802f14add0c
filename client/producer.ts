/**
 * The producer: partitions records, batches them per partition, and pipelines the batches to
 * partition leaders over one ProduceStream per broker.
 *
 * Per partition (a `PartitionState`):
 *   open batch ──(full, or linger expired and a send slot free, or flush)──▶ ready queue
 *   ready ──(in flight < maxInFlight)──▶ built (sequence assigned) ──▶ in flight ──▶ settled
 * A batch is appendable until it is full or can actually be sent: under load batches grow up to
 * `batchBytes` on their own (Kafka's accumulator does the same), at low load `lingerMs` bounds
 * latency.
 *
 * Retries: when a batch comes back with a retriable error, the partition stops sending, waits for
 * its other in-flight batches to come back, re-queues every failed batch in its original order,
 * refreshes metadata, backs off, and resends — the same bytes, so with idempotence the broker
 * drops duplicates and order is kept. A non-retriable error with idempotence fails that batch and
 * every later batch of the partition (they would be out of sequence); once nothing is in flight
 * the partition gets a fresh producer id and starts over at sequence 0.
 *
 * Hot path per record: normalize into one reused scratch object, pick the partition, append into
 * the open BatchBuilder, extend a result segment. No promise, closure or object per record
 * (strings given as keys/values are encoded to Buffers, headers objects are converted).
 */
import type { Clock } from '../services/common/clock';
import { TideError } from '../services/common/errors';
import type { Logger } from '../services/common/logger';
import {
  BatchBuilder,
  type BatchBuilderOptions,
  CompressionCodec,
  NO_SEQUENCE,
  type RecordInput,
} from '../services/common/records';
import type { InitProducerIdResponse } from '../services/common/grpc/generated/tide/v1/InitProducerIdResponse';
import type { ProduceResponse } from '../services/common/grpc/generated/tide/v1/ProduceResponse';
import { Cluster, ROUTING_ERRORS, unary, type ClusterOptions } from './cluster';
import { partitionForKey } from './partitioner';
import { incrementSequence, ProducerBatch, SendSink } from './producer-batch';
import { resolveProducerOptions, type ProducerOptions, type SendOptions } from './producer-options';
import {
  NO_IDENTITY,
  PartitionState,
  TopicState,
  withContext,
  type Identity,
  type Job,
} from './producer-state';
import { ProduceStream } from './produce-stream';
import { checkPartition, toBuffer, toHeaders } from './record-input';
import { backoffMs, retry, sleep, type RetryOptions } from './retry';
import type { BatchMetadata, ProducerRecord, RecordMetadata } from './types';
import { encodeProduceBody, type AcksOption, type EncodedProduceRequest } from './wire';
import { BufferPool } from './buffer-pool';

export {
  DEFAULT_BATCH_BYTES,
  DEFAULT_LINGER_MS,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_PRODUCER_REQUEST_TIMEOUT_MS,
  DEFAULT_PRODUCER_RETRY,
  type ProducerOptions,
  type SendOptions,
} from './producer-options';

const MIN_BATCH_CAPACITY_BYTES = 16 * 1024;

export class Producer {
  readonly cluster: Cluster;
  private readonly ownsCluster: boolean;
  private readonly acks: AcksOption;
  private readonly lingerMs: number;
  private readonly batchBytes: number;
  private readonly maxInFlight: number;
  private readonly compression: CompressionCodec;
  private readonly idempotent: boolean;
  private readonly retryOptions: Omit<RetryOptions, 'signal'>;
  private readonly requestTimeoutMs: number;
  private readonly deliveryTimeoutMs: number;
  private readonly maxBufferedBytes: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly random: () => number;
  private readonly requestBuffers: BufferPool;
  private readonly builderBuffers: BufferPool;

  private readonly topics = new Map<string, TopicState>();
  private readonly streams = new Map<string, ProduceStream<ProducerBatch>>();
  private readonly batchState = new WeakMap<ProducerBatch, PartitionState>();
  /** The stream each in-flight batch was last sent on; answers from any other are stale. */
  private readonly sentOn = new WeakMap<ProducerBatch, ProduceStream<ProducerBatch>>();
  private readonly unsubscribeLeaders: () => void;
  private readonly congested = new Set<PartitionState>();
  private readonly queue: Job[] = [];
  private readonly scratch: RecordInput = {
    key: null,
    value: null,
    headers: undefined,
    timestampMs: undefined,
  };
  private identity: Identity | undefined;
  private identityRequest: Promise<Identity> | undefined;
  private pumping = false;
  private buffered = 0;
  private unsettledBatches = 0;
  private flushDepth = 0;
  private spaceWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private closed = false;
  private readonly sweepTimer: { cancel(): void };

  /** Give a Cluster to share connections, or cluster options to have the producer own one. */
  constructor(cluster: Cluster | ClusterOptions, options: ProducerOptions = {}) {
    this.ownsCluster = !(cluster instanceof Cluster);
    this.cluster = cluster instanceof Cluster ? cluster : new Cluster(cluster);
    const settings = resolveProducerOptions(options);
    this.acks = settings.acks;
    this.idempotent = settings.idempotent;
    this.lingerMs = settings.lingerMs;
    this.batchBytes = settings.batchBytes;
    this.maxInFlight = settings.maxInFlight;
    this.compression = settings.compression;
    this.retryOptions = settings.retry;
    this.requestTimeoutMs = settings.requestTimeoutMs;
    this.deliveryTimeoutMs = settings.deliveryTimeoutMs;
    this.maxBufferedBytes = settings.maxBufferedBytes;
    this.clock = options.clock ?? this.cluster.clock;
    this.logger = (options.logger ?? this.cluster.logger).child({ component: 'producer' });
    this.random = options.random ?? Math.random;
    // Room for a batch overshooting batchBytes by a record or so, plus the request's own fields.
    this.builderBuffers = new BufferPool(
      this.batchBytes + 4096,
      Math.min(this.maxBufferedBytes, 16 * 1024 * 1024),
    );
    this.requestBuffers = new BufferPool(
      this.batchBytes + 4096,
      Math.min(this.maxBufferedBytes, 16 * 1024 * 1024),
    );
    this.unsubscribeLeaders = this.cluster.onLeaderChange((topic, partition) =>
      this.onLeaderMoved(topic, partition),
    );
    this.sweepTimer = this.clock.setInterval(
      () => this.sweepTimeouts(),
      Math.max(10, Math.min(1_000, this.requestTimeoutMs / 4)),
    );
  }

  /** Bytes accepted but not yet acknowledged (or failed). */
  get bufferedBytes(): number {
    return this.buffered;
  }

  /** Connects and, with idempotence, obtains the producer id. Optional: send() does it lazily. */
  async connect(): Promise<void> {
    await this.cluster.connect();
    if (this.idempotent) await this.ensureIdentity();
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
    if (this.buffered < this.maxBufferedBytes && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.spaceWaiters.push(resolve));
  }

  /** Sends everything accepted so far without waiting for linger; resolves when all of it settled. */
  async flush(): Promise<void> {
    this.flushDepth++;
    try {
      for (const topic of this.topics.values()) {
        for (const state of topic.partitions) {
          if (!state) continue;
          if (state.open) state.open.eligible = true;
          this.drain(state);
        }
      }
      await this.idle();
    } finally {
      this.flushDepth--;
    }
  }

  /** Flushes, then closes the produce streams (and the cluster when the producer owns it). */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      this.sweepTimer.cancel();
      this.unsubscribeLeaders();
      for (const stream of this.streams.values()) stream.end();
      this.streams.clear();
      if (this.ownsCluster) this.cluster.close();
    }
  }

  // ---------------------------------------------------------------- accepting records

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
        const job = this.queue[0];
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
    if (this.idempotent && !this.identity) return this.ensureIdentity();
    const meta = this.cluster.cachedTopic(job.topic);
    if (!meta) return this.cluster.topicMetadata(job.topic);
    const partitionCount = meta.partitions.length;
    let topic = this.topics.get(job.topic);
    if (!topic) {
      topic = new TopicState(job.topic);
      this.topics.set(job.topic, topic);
    }
    // Batches stay within the topic's max.message.bytes, whatever batchBytes says.
    const batchLimit =
      meta.maxMessageBytes > 0 ? Math.min(this.batchBytes, meta.maxMessageBytes) : this.batchBytes;
    const scratch = this.scratch;
    const { record, records, count, sink } = job;
    let i = job.next;
    let lastPartition = -1;
    let state: PartitionState | undefined;
    try {
      if (job.partition !== undefined) checkPartition(job.topic, job.partition, partitionCount);
      for (; i < count; i++) {
        if (this.buffered >= this.maxBufferedBytes) {
          job.next = i;
          return this.waitForSpace();
        }
        const item = record ?? (records as readonly (ProducerRecord | Buffer)[])[i];
        let partition = job.partition;
        if (Buffer.isBuffer(item)) {
          scratch.key = job.key;
          scratch.value = item;
          scratch.headers = undefined;
          scratch.timestampMs = undefined;
        } else {
          scratch.key = item.key === undefined || item.key === null ? job.key : toBuffer(item.key);
          scratch.value = item.value === null ? null : toBuffer(item.value);
          scratch.headers = item.headers === undefined ? undefined : toHeaders(item.headers);
          scratch.timestampMs = item.timestampMs;
          if (item.partition !== undefined)
            partition = checkPartition(job.topic, item.partition, partitionCount);
        }
        if (partition === undefined) {
          partition =
            scratch.key !== null
              ? partitionForKey(scratch.key, partitionCount)
              : this.stickyPartition(topic, partitionCount);
        }
        if (partition !== lastPartition || state === undefined) {
          state = this.partitionState(topic, partition);
          lastPartition = partition;
        }
        this.append(state, sink, i, batchLimit);
      }
    } catch (err) {
      sink.fail(
        err instanceof TideError || err instanceof TypeError || err instanceof RangeError
          ? err
          : new TideError('INVALID_RECORD', String(err), { cause: err }),
      );
    }
    job.next = count;
    return null;
  }

  private append(state: PartitionState, sink: SendSink, callIndex: number, batchLimit: number): void {
    let batch = state.open;
    // A record that would push a non-empty batch past the limit starts the next batch, so batches
    // stay within the broker's max.message.bytes (only a single record can be bigger on its own).
    if (batch && this.wouldOverflow(batch.builder as BatchBuilder, batchLimit)) {
      this.closeOpen(state);
      this.drain(state);
      batch = null;
    }
    if (!batch) batch = this.openBatch(state);
    const builder = batch.builder as BatchBuilder;
    builder.append(this.scratch);
    const size = builder.sizeInBytes;
    this.buffered += size - batch.accountedBytes;
    batch.accountedBytes = size;
    if (sink.single) sink.timestampMs = this.scratch.timestampMs ?? batch.nowMs;
    batch.addRecord(sink, callIndex);
    if (size >= batchLimit) {
      this.closeOpen(state);
      this.drain(state);
    }
  }

  private wouldOverflow(builder: BatchBuilder, batchLimit: number): boolean {
    if (builder.recordCount === 0) return false;
    const record = this.scratch;
    // Cheap bound first; the exact size (varints, headers) only near the limit.
    const roughBytes = (record.key?.length ?? 0) + (record.value?.length ?? 0) + 64;
    if (!record.headers?.length && builder.sizeInBytes + roughBytes <= batchLimit) return false;
    return builder.sizeWith(record) > batchLimit;
  }

  private openBatch(state: PartitionState): ProducerBatch {
    const capacity = Math.min(
      this.batchBytes + 1024,
      Math.max(MIN_BATCH_CAPACITY_BYTES, Math.ceil(state.lastBatchBytes * 1.25)),
    );
    const nowMs = this.clock.nowMs();
    // Offered to the builder as its storage, for a codec that accepts one (`buffer`); the builder
    // of services/common/records does not yet, and then this buffer is returned unused at build.
    const buffer = this.builderBuffers.acquire(this.builderBuffers.bufferBytes);
    const options: BatchBuilderOptions & { buffer?: Buffer } = {
      compression: this.compression,
      nowMs,
      initialCapacity: capacity,
      buffer,
    };
    const batch = new ProducerBatch(new BatchBuilder(options), state.nextOrder++, nowMs);
    batch.builderBuffer = buffer;
    batch.accountedBytes = batch.builder!.sizeInBytes;
    this.buffered += batch.accountedBytes;
    this.unsettledBatches++;
    state.open = batch;
    this.batchState.set(batch, state);
    // While a flush waits, a new batch may go as soon as the records of this turn are in.
    if (this.lingerMs === 0 || this.flushDepth > 0) setImmediate(() => this.lingerExpired(state, batch));
    else state.lingerTimer = this.clock.setTimeout(() => this.lingerExpired(state, batch), this.lingerMs);
    return batch;
  }

  private lingerExpired(state: PartitionState, batch: ProducerBatch): void {
    if (state.open !== batch) return;
    state.lingerTimer = undefined;
    batch.eligible = true;
    this.drain(state);
  }

  private closeOpen(state: PartitionState): void {
    const batch = state.open as ProducerBatch;
    state.open = null;
    state.lingerTimer?.cancel();
    state.lingerTimer = undefined;
    state.ready.push(batch);
    state.lastBatchBytes = batch.accountedBytes;
    const topic = this.topics.get(state.topic);
    if (topic && topic.sticky === state.partition) {
      topic.previousSticky = topic.sticky;
      topic.sticky = -1;
    }
  }

  /** Kafka's sticky partitioner: one random partition until its batch closes, then another. */
  private stickyPartition(topic: TopicState, partitionCount: number): number {
    if (topic.sticky >= 0 && topic.sticky < partitionCount) return topic.sticky;
    const previous = topic.previousSticky;
    let next = Math.floor(this.random() * partitionCount);
    if (partitionCount > 1 && next === previous) next = (next + 1) % partitionCount;
    topic.sticky = next;
    return next;
  }

  private partitionState(topic: TopicState, partition: number): PartitionState {
    let state = topic.partitions[partition];
    if (!state) {
      state = new PartitionState(topic.name, partition, this.identity ?? NO_IDENTITY);
      topic.partitions[partition] = state;
    }
    return state;
  }

  private waitForSpace(): Promise<void> {
    return new Promise((resolve) => this.spaceWaiters.push(resolve));
  }

  private wakeSpaceWaiters(): void {
    if (this.buffered >= this.maxBufferedBytes || this.spaceWaiters.length === 0) return;
    const waiters = this.spaceWaiters;
    this.spaceWaiters = [];
    for (const wake of waiters) wake();
  }

  // ---------------------------------------------------------------- sending

  /** Sends what the partition may send now. */
  private drain(state: PartitionState): void {
    if (state.broken) {
      if (state.inFlight.length === 0 && !state.identityPending) void this.resetIdentity(state);
      return;
    }
    if (state.recovering || state.identityPending || this.congested.has(state)) return;
    while (state.inFlight.length < this.maxInFlight) {
      let batch = state.ready.shift();
      if (!batch) {
        if (!state.open || !state.open.eligible) return;
        this.closeOpen(state);
        batch = state.ready.shift() as ProducerBatch;
      }
      if (!batch.request) this.build(state, batch);
      if (!this.transmit(state, batch)) return;
    }
  }

  private build(state: PartitionState, batch: ProducerBatch): void {
    const identity = this.idempotent ? state.identity : NO_IDENTITY;
    batch.baseSequence = this.idempotent ? state.nextSequence : NO_SEQUENCE;
    const bytes = (batch.builder as BatchBuilder).build({
      producerId: identity.producerId,
      producerEpoch: identity.producerEpoch,
      baseSequence: batch.baseSequence,
    });
    // Encoded once into a pooled buffer; the builder's memory is garbage from here on.
    batch.request = encodeProduceBody(
      {
        topic: state.topic,
        partition: state.partition,
        acks: this.acks,
        timeoutMs: this.requestTimeoutMs,
        recordBatches: bytes,
      },
      this.requestBuffers,
    );
    batch.builder = null;
    // `bytes` was copied into the request: the builder's storage is free again.
    this.releaseBuilderBuffer(batch);
    if (this.idempotent) state.nextSequence = incrementSequence(state.nextSequence, batch.recordCount);
  }

  /** Puts a built batch on the wire. False when the partition must stop sending for now. */
  private transmit(state: PartitionState, batch: ProducerBatch): boolean {
    batch.attempts++;
    state.inFlight.push(batch);
    let stream: ProduceStream<ProducerBatch>;
    try {
      stream = this.streamTo(this.cluster.leaderFor(state.topic, state.partition));
    } catch (err) {
      this.onResult(state, batch, undefined, err as TideError);
      return false;
    }
    if (stream.congested) {
      state.inFlight.pop();
      batch.attempts--;
      state.ready.unshift(batch);
      this.congested.add(state);
      return false;
    }
    this.sentOn.set(batch, stream);
    stream.send(batch, batch.request as EncodedProduceRequest, this.acks === 'none', this.clock.nowMs());
    return true;
  }

  private streamTo(address: string): ProduceStream<ProducerBatch> {
    let stream = this.streams.get(address);
    if (!stream || !stream.alive) {
      const created: ProduceStream<ProducerBatch> = new ProduceStream<ProducerBatch>(
        this.cluster.pool.broker(address),
        address,
        {
          onResponse: (batch, response, error) => this.onAnswer(created, batch, response, error),
          onWritten: (batch) => this.onAnswer(created, batch, undefined, undefined),
          onFailure: (batches, error) => {
            for (const batch of batches) this.onAnswer(created, batch, undefined, error);
          },
          onDrain: () => this.onStreamDrain(),
        },
      );
      stream = created;
      this.streams.set(address, stream);
    }
    return stream;
  }

  /** An answer from `stream` about `batch`; ignored when the batch was re-sent elsewhere since. */
  private onAnswer(
    stream: ProduceStream<ProducerBatch>,
    batch: ProducerBatch,
    response: ProduceResponse | undefined,
    error: TideError | undefined,
  ): void {
    if (this.sentOn.get(batch) !== stream) return;
    this.sentOn.delete(batch);
    this.onResult(this.batchState.get(batch)!, batch, response, error);
  }

  /**
   * The metadata names a new leader for topic-partition: batches in flight to the old one are
   * re-sent to the new one at once, in order, instead of waiting for the old leader (paused, cut
   * off) to answer or for the request timeout. Idempotent producers only: the broker drops a
   * sequence it already has, so a batch the old leader did commit is not written twice; late
   * answers from the old leader are ignored (sentOn).
   */
  private onLeaderMoved(topic: string, partition: number): void {
    if (!this.idempotent || this.closed) return;
    const state = this.topics.get(topic)?.partitions[partition];
    if (!state || state.inFlight.length === 0 || state.broken) return;
    let address: string;
    try {
      address = this.cluster.leaderFor(topic, partition);
    } catch {
      return; // no leader yet: the next metadata change tells
    }
    const stale = state.inFlight.filter((b) => this.sentOn.get(b)?.address !== address);
    if (stale.length === 0) return;
    this.logger.info(
      { topic, partition, leader: address, batches: stale.length },
      'partition leader moved: re-sending in-flight batches to the new leader',
    );
    for (const batch of state.inFlight) this.sentOn.delete(batch);
    state.failedInRound.push(...state.inFlight);
    state.inFlight = [];
    state.recovering = true;
    this.recover(state, true);
  }

  private onStreamDrain(): void {
    const states = [...this.congested];
    this.congested.clear();
    for (const state of states) this.drain(state);
  }

  private sweepTimeouts(): void {
    const cutoff = this.clock.nowMs() - this.requestTimeoutMs;
    for (const stream of this.streams.values()) {
      if (stream.inFlightCount > 0 && stream.oldestSentAtMs() <= cutoff) {
        stream.abort(
          new TideError(
            'REQUEST_TIMED_OUT',
            `no produce response from ${stream.address} within ${this.requestTimeoutMs} ms`,
          ),
        );
      }
    }
  }

  // ---------------------------------------------------------------- results

  private onResult(
    state: PartitionState,
    batch: ProducerBatch,
    response: ProduceResponse | undefined,
    error: TideError | undefined,
  ): void {
    const index = state.inFlight.indexOf(batch);
    if (index >= 0) state.inFlight.splice(index, 1);
    if (!error) {
      const buffer = batch.settle(
        state.partition,
        response ? response.base_offset : -1,
        response ? response.log_append_time_ms : -1,
      );
      if (buffer) this.requestBuffers.release(buffer);
      this.released(batch);
    } else {
      this.onError(state, batch, error);
    }
    if (state.inFlight.length > 0) {
      this.drain(state);
    } else if (state.recovering) {
      this.recover(state);
    } else {
      this.drain(state);
    }
  }

  private onError(state: PartitionState, batch: ProducerBatch, err: TideError): void {
    const error = withContext(err, state);
    if (ROUTING_ERRORS.has(error.code)) this.cluster.invalidate(state.topic);
    // A gap the broker saw because an earlier batch of this round is being retried is not fatal.
    const gapFromRetry = error.code === 'OUT_OF_ORDER_SEQUENCE' && state.failedInRound.length > 0;
    const withinDelivery = this.clock.nowMs() - batch.nowMs < this.deliveryTimeoutMs;
    const mayRetry =
      (error.retriable || gapFromRetry) &&
      withinDelivery &&
      batch.attempts < this.retryOptions.attempts &&
      !this.closed &&
      !state.broken;
    if (mayRetry) {
      this.logger.debug(
        { topic: state.topic, partition: state.partition, code: error.code, attempt: batch.attempts },
        'produce failed; will retry',
      );
      state.failedInRound.push(batch);
      state.recovering = true;
      return;
    }
    const final =
      (error.retriable || gapFromRetry) && !withinDelivery
        ? new TideError(
            error.code,
            `${error.message} (gave up: the delivery timeout of ${this.deliveryTimeoutMs} ms passed after ${batch.attempts} tries)`,
            { cause: error, retriable: false, context: { topic: state.topic, partition: state.partition } },
          )
        : error;
    this.fail(batch, final);
    if (this.idempotent) this.breakPartition(state, final);
  }

  /** Fails every batch of the partition that has not been sent (they would leave a sequence gap). */
  private breakPartition(state: PartitionState, cause: TideError): void {
    state.broken = true;
    const err = new TideError(
      cause.code,
      `an earlier batch of ${state.topic}/${state.partition} failed (${cause.code}: ${cause.message}); later records of this partition were not sent, to keep their order`,
      { cause, retriable: false, context: { topic: state.topic, partition: state.partition } },
    );
    const pending = [...state.failedInRound, ...state.ready];
    state.failedInRound = [];
    state.ready = [];
    state.recovering = false;
    if (state.open) {
      pending.push(state.open);
      state.open = null;
      state.lingerTimer?.cancel();
    }
    for (const batch of pending) this.fail(batch, err);
  }

  /** After a retriable failure, once nothing is in flight: re-queue, refresh metadata, back off, resend. */
  private recover(state: PartitionState, now = false): void {
    const failed = state.failedInRound;
    state.failedInRound = [];
    state.ready = [...failed, ...state.ready].sort((a, b) => a.order - b.order);
    const attempt = failed.reduce((max, b) => Math.max(max, b.attempts), 1);
    // `now`: the metadata just moved the partition; no refresh, no backoff.
    const delayMs = now ? 0 : backoffMs(attempt, this.retryOptions, this.random);
    const refresh = now
      ? Promise.resolve()
      : this.cluster.topicMetadata(state.topic, true).catch((err: unknown) => {
          this.logger.debug({ err, topic: state.topic }, 'metadata refresh before retry failed');
        });
    void Promise.all([refresh, sleep(delayMs, this.clock)]).then(() => {
      state.recovering = false;
      if (this.closed && state.ready.length > 0) {
        for (const batch of state.ready.splice(0))
          this.fail(
            batch,
            new TideError('BROKER_NOT_AVAILABLE', 'the producer closed before the batch could be retried', {
              retriable: false,
            }),
          );
        return;
      }
      this.drain(state);
    });
  }

  /** A broken partition (idempotent) continues under a fresh producer id, from sequence 0. */
  private async resetIdentity(state: PartitionState): Promise<void> {
    state.identityPending = true;
    try {
      const identity = await this.initProducerId();
      state.identity = identity;
      state.nextSequence = 0;
      state.broken = false;
    } catch (err) {
      const error = withContext(err as TideError, state);
      this.logger.warn(
        { err: error, topic: state.topic, partition: state.partition },
        'could not get a fresh producer id',
      );
      if (state.open) {
        this.fail(state.open, error);
        state.open = null;
        state.lingerTimer?.cancel();
      }
    } finally {
      state.identityPending = false;
    }
    if (!state.broken) this.drain(state);
  }

  private fail(batch: ProducerBatch, err: TideError): void {
    // The request buffer is not recycled: a failed stream may still be framing it for a dead call.
    batch.fail(err);
    this.releaseBuilderBuffer(batch);
    this.released(batch);
  }

  private releaseBuilderBuffer(batch: ProducerBatch): void {
    if (!batch.builderBuffer) return;
    this.builderBuffers.release(batch.builderBuffer);
    batch.builderBuffer = null;
  }

  private released(batch: ProducerBatch): void {
    this.buffered -= batch.accountedBytes;
    batch.accountedBytes = 0;
    this.unsettledBatches--;
    this.wakeSpaceWaiters();
    this.checkIdle();
  }

  // ---------------------------------------------------------------- identity and idleness

  private ensureIdentity(): Promise<Identity> {
    if (this.identity) return Promise.resolve(this.identity);
    this.identityRequest ??= this.initProducerId().then(
      (identity) => {
        this.identity = identity;
        return identity;
      },
      (err: unknown) => {
        this.identityRequest = undefined;
        throw err;
      },
    );
    return this.identityRequest;
  }

  private initProducerId(): Promise<Identity> {
    return retry(
      () =>
        this.cluster.withControlBroker((address) =>
          unary<InitProducerIdResponse>((cb) =>
            this.cluster.pool.broker(address).InitProducerId({}, { deadline: this.cluster.deadline() }, cb),
          ),
        ),
      this.retryOptions,
      { clock: this.clock, random: this.random },
    ).then((r) => ({ producerId: r.producer_id, producerEpoch: r.producer_epoch }));
  }

  private idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.unsettledBatches === 0 && this.queue.length === 0 && !this.pumping;
  }

  private checkIdle(): void {
    if (this.idleWaiters.length === 0 || !this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
