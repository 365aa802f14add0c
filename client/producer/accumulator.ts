/**
 * The producer's accumulator (Kafka's RecordAccumulator): turns send() calls into record batches,
 * one open batch per partition, and accounts the bytes they hold against `maxBufferedBytes`.
 *
 *   record ──(normalize, partition)──▶ open batch ──(full, linger expired, flush)──▶ the sender
 *
 * A batch stays open (appendable) until it is full or can actually be sent: the sender takes an
 * open batch only when it is `eligible` (linger expired, or a flush) and the partition has a send
 * slot free, so under load batches grow up to `batchBytes` on their own while at low load
 * `lingerMs` bounds latency. Closing a batch (full, or taken by the sender) moves it to the
 * partition's ready queue and switches the sticky partition of keyless records.
 *
 * Hot path per record: normalize into one reused scratch object, pick the partition, append into
 * the open BatchBuilder, extend a result segment. No promise, closure or object per record
 * (strings given as keys/values are encoded to Buffers, headers objects are converted).
 */
import type { Clock } from '../../services/common/clock';
import { TideError } from '../../services/common/errors';
import {
  BatchBuilder,
  type BatchBuilderOptions,
  type CompressionCodec,
  type RecordInput,
} from '../../services/common/records';
import type { TopicMetadata } from '../cluster';
import { BufferPool } from '../net/buffer-pool';
import type { ProducerRecord } from '../types';
import { ProducerBatch, type SendSink } from './batch';
import { partitionForKey } from './partitioner';
import { checkPartition, isPartitionNumber, toBuffer, toHeaders } from './record-input';
import { NO_IDENTITY, PartitionState, TopicState, type Identity, type Job } from './state';

const MIN_BATCH_CAPACITY_BYTES = 16 * 1024;

/**
 * What `append` did with a job: 'done', every record went in (or the job failed: its sink is
 * settled); 'full', the buffer is full; 'unknownPartition', a record names a partition the
 * metadata lacks (`job.awaitedPartition`), which may have been added since the metadata was
 * fetched. For the last two, `job.next` says where to go on.
 */
export type AppendOutcome = 'done' | 'full' | 'unknownPartition';

export interface AccumulatorSettings {
  batchBytes: number;
  lingerMs: number;
  compression: CompressionCodec;
  maxBufferedBytes: number;
  clock: Clock;
  random: () => number;
}

export interface AccumulatorHooks {
  /** The partition may have a batch to send (one closed, or its linger expired): the sender's drain. */
  drain(state: PartitionState): void;
  /** A batch left the buffer (settled or failed): its bytes are free again. */
  released(): void;
  /** The producer identity new partitions start with (undefined before it is known). */
  identity(): Identity | undefined;
  /** A batch opened for the partition (a transactional producer notes the partitions it wrote). */
  opened?(state: PartitionState): void;
}

export class RecordAccumulator {
  private readonly batchBytes: number;
  private readonly lingerMs: number;
  private readonly compression: CompressionCodec;
  readonly maxBufferedBytes: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly builderBuffers: BufferPool;
  private readonly topics = new Map<string, TopicState>();
  private readonly scratch: RecordInput = {
    key: null,
    value: null,
    headers: undefined,
    timestampMs: undefined,
  };
  /** Bytes accepted but not yet acknowledged (or failed). */
  buffered = 0;
  /** Batches opened and not yet settled or failed. */
  unsettledBatches = 0;
  private flushDepth = 0;

  constructor(
    settings: AccumulatorSettings,
    private readonly hooks: AccumulatorHooks,
  ) {
    this.batchBytes = settings.batchBytes;
    this.lingerMs = settings.lingerMs;
    this.compression = settings.compression;
    this.maxBufferedBytes = settings.maxBufferedBytes;
    this.clock = settings.clock;
    this.random = settings.random;
    // Room for a batch overshooting batchBytes by a record or so, plus the request's own fields.
    this.builderBuffers = new BufferPool(
      this.batchBytes + 4096,
      Math.min(this.maxBufferedBytes, 16 * 1024 * 1024),
    );
  }

  /** False while `maxBufferedBytes` are unacknowledged. */
  get hasRoom(): boolean {
    return this.buffered < this.maxBufferedBytes;
  }

  /** Appends as much of the job as the buffer and the metadata allow (see AppendOutcome). */
  append(job: Job, meta: TopicMetadata): AppendOutcome {
    const partitionCount = meta.partitions.length;
    // A partition beyond the metadata's count is waited for once before it is an error.
    const notYetKnown = (partition: number) =>
      isPartitionNumber(partition) && partition >= partitionCount && partition !== job.awaitedPartition;
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
      if (job.partition !== undefined) {
        if (notYetKnown(job.partition)) {
          job.awaitedPartition = job.partition;
          return 'unknownPartition';
        }
        checkPartition(job.topic, job.partition, partitionCount);
      }
      for (; i < count; i++) {
        if (this.buffered >= this.maxBufferedBytes) {
          job.next = i;
          return 'full';
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
          if (item.partition !== undefined) {
            if (notYetKnown(item.partition)) {
              job.next = i;
              job.awaitedPartition = item.partition;
              return 'unknownPartition';
            }
            partition = checkPartition(job.topic, item.partition, partitionCount);
          }
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
        this.appendRecord(state, sink, i, batchLimit);
      }
    } catch (err) {
      sink.fail(
        err instanceof TideError || err instanceof TypeError || err instanceof RangeError
          ? err
          : new TideError('INVALID_RECORD', String(err), { cause: err }),
      );
    }
    job.next = count;
    return 'done';
  }

  /** Makes every open batch eligible and offers every partition to the sender (a flush begins). */
  /** The state of topic-partition if a record was ever accepted for it. */
  stateOf(topic: string, partition: number): PartitionState | undefined {
    return this.topics.get(topic)?.partitions[partition];
  }

  forEachState(fn: (state: PartitionState) => void): void {
    for (const topic of this.topics.values()) for (const state of topic.partitions) if (state) fn(state);
  }

  beginFlush(): void {
    this.flushDepth++;
    for (const topic of this.topics.values()) {
      for (const state of topic.partitions) {
        if (!state) continue;
        if (state.open) state.open.eligible = true;
        this.hooks.drain(state);
      }
    }
  }

  endFlush(): void {
    this.flushDepth--;
  }

  /** Closes the partition's open batch: it joins the ready queue (the sender's). */
  closeOpen(state: PartitionState): void {
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

  /** Takes the open batch away unsent (to fail it): its linger timer stops. */
  abandonOpen(state: PartitionState): ProducerBatch | null {
    const batch = state.open;
    if (batch) {
      state.open = null;
      state.lingerTimer?.cancel();
    }
    return batch;
  }

  /** The builder's pooled storage is free (the batch was built into its request, or failed). */
  releaseBuilderBuffer(batch: ProducerBatch): void {
    if (!batch.builderBuffer) return;
    this.builderBuffers.release(batch.builderBuffer);
    batch.builderBuffer = null;
  }

  /** A batch settled or failed: its storage and bytes leave the buffer. */
  release(batch: ProducerBatch): void {
    this.releaseBuilderBuffer(batch);
    this.buffered -= batch.accountedBytes;
    batch.accountedBytes = 0;
    this.unsettledBatches--;
    this.hooks.released();
  }

  private appendRecord(state: PartitionState, sink: SendSink, callIndex: number, batchLimit: number): void {
    let batch = state.open;
    // A record that would push a non-empty batch past the limit starts the next batch, so batches
    // stay within the broker's max.message.bytes (only a single record can be bigger on its own).
    if (batch && this.wouldOverflow(batch.builder as BatchBuilder, batchLimit)) {
      this.closeOpen(state);
      this.hooks.drain(state);
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
      this.hooks.drain(state);
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
    // The builder builds into a pooled buffer (fresh large ones page-fault on every batch); the built
    // batch may share it, so it goes back to the pool only when the batch is done with. A partition
    // whose batches stay small gets a small one (buffer-pool.ts); the builder grows past it if needed.
    const buffer = this.builderBuffers.acquire(capacity);
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
    this.hooks.opened?.(state);
    // While a flush waits, a new batch may go as soon as the records of this turn are in.
    if (this.lingerMs === 0 || this.flushDepth > 0) setImmediate(() => this.lingerExpired(state, batch));
    else state.lingerTimer = this.clock.setTimeout(() => this.lingerExpired(state, batch), this.lingerMs);
    return batch;
  }

  private lingerExpired(state: PartitionState, batch: ProducerBatch): void {
    if (state.open !== batch) return;
    state.lingerTimer = undefined;
    batch.eligible = true;
    this.hooks.drain(state);
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
      state = new PartitionState(topic.name, partition, this.hooks.identity() ?? NO_IDENTITY);
      topic.partitions[partition] = state;
    }
    return state;
  }
}
