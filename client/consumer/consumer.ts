/**
 * The consumer: reads assigned partitions from any offset over one FetchStream per leader
 * broker, decoding record batches client-side. Three parts:
 *
 * - the per-partition state (partition-state.ts): position, fetch offset, generation, errors;
 * - the fetch-stream manager (fetcher.ts): streams per leader, the buffer, per-partition errors;
 * - offset resolution (offsets.ts): the reset policy, seeks by timestamp, ListOffsets.
 *
 * This class is what callers see: assignment, seeks, pause/resume, the iterators, one-off
 * fetch() and listOffset().
 *
 * Consumer groups: `GroupConsumer` (client/group/group-consumer.ts, `tide.consumer({ groupId })`)
 * drives `assign()` from the group's assignment and starts partitions at committed offsets.
 */
import type { Clock } from '../../services/common/clock';
import { TideError } from '../../services/common/errors';
import type { Logger } from '../../services/common/logger';
import { Cluster, type ClusterOptions } from '../cluster';
import { DEFAULT_RETRY, type RetryOptions } from '../retry';
import { tpKey, type ConsumerBatch, type ConsumerRecord, type TopicPartition } from '../types';
import {
  abortedOf,
  checkFetched,
  nextFetchOffset,
  requireIsolation,
  splitFetched,
  wireIsolation,
  type IsolationLevel,
} from './fetch-decode';
import { FetchManager } from './fetcher';
import { OffsetResolver, type AutoOffsetReset, type ListedOffset } from './offsets';
import { AssignedPartition, type Reset } from './partition-state';

export type { AutoOffsetReset } from './offsets';
export type { IsolationLevel } from './fetch-decode';

export interface ConsumerOptions {
  /**
   * Where to start a partition assigned without an offset, or whose offset fell out of range:
   * 'earliest', 'latest', or 'none' (surface the error; seek to continue). Default 'latest'.
   */
  autoOffsetReset?: AutoOffsetReset;
  /**
   * 'read_uncommitted' (default, as Kafka): every record below the high watermark, those of open
   * and aborted transactions included. 'read_committed': only committed data, up to the last stable
   * offset (the first open transaction); records of aborted transactions are never handed out, and
   * 'latest' means the last stable offset. Transaction markers never reach the application.
   */
  isolation?: IsolationLevel;
  /**
   * Byte limit per fetch response (the broker returns at least one whole batch). Default 1 MiB,
   * Kafka's max.partition.fetch.bytes: every response is a fresh buffer on the client (grpc-js
   * assembles each message), and 4 MiB responses measured about twice the consumer CPU of smaller
   * ones (page faults), while 256 KiB ones spent more per record on per-response overhead.
   */
  maxBytes?: number;
  /** Fetched bytes not yet consumed; above it the streams pause (HTTP/2 backpressure). Default 32 MiB. */
  maxBufferedBytes?: number;
  /** Backoff of stream reconnects and retries of ListOffsets/fetch(). */
  retry?: Partial<Omit<RetryOptions, 'signal'>>;
  logger?: Logger;
  clock?: Clock;
}

export interface FetchOptions {
  maxBytes?: number;
  /** Long poll: wait up to this long for data. Default 0 (answer at once). */
  maxWaitMs?: number;
  minBytes?: number;
}

export interface FetchResult extends ConsumerBatch {
  logStartOffset: number;
}

export const DEFAULT_CONSUMER_MAX_BYTES = 1024 * 1024;
export const DEFAULT_CONSUMER_MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

export class Consumer implements AsyncIterable<ConsumerRecord> {
  readonly cluster: Cluster;
  private readonly ownsCluster: boolean;
  private readonly retryOptions: Omit<RetryOptions, 'signal'>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly assigned = new Map<string, AssignedPartition>();
  private readonly offsets: OffsetResolver;
  private readonly fetcher: FetchManager;
  /** What this consumer reads (ConsumerOptions.isolation). */
  readonly isolation: IsolationLevel;
  private closed = false;

  constructor(cluster: Cluster | ClusterOptions, options: ConsumerOptions = {}) {
    this.isolation = requireIsolation(options.isolation); // before any connection exists
    this.ownsCluster = !(cluster instanceof Cluster);
    this.cluster = cluster instanceof Cluster ? cluster : new Cluster(cluster);
    this.retryOptions = { ...DEFAULT_RETRY, ...options.retry };
    this.clock = options.clock ?? this.cluster.clock;
    this.offsets = new OffsetResolver(
      this.cluster,
      options.autoOffsetReset ?? 'latest',
      { retry: this.retryOptions, clock: this.clock, isolation: this.isolation },
      {
        changed: () => this.fetcher.scheduleReconcile(),
        surface: (state, error) => this.fetcher.surface(state, error),
      },
    );
    this.logger = (options.logger ?? this.cluster.logger).child({ component: 'consumer' });
    this.fetcher = new FetchManager(this.cluster, this.assigned, this.offsets, {
      maxBytes: options.maxBytes ?? DEFAULT_CONSUMER_MAX_BYTES,
      maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_CONSUMER_MAX_BUFFERED_BYTES,
      isolation: this.isolation,
      retry: this.retryOptions,
      clock: this.clock,
      logger: this.logger,
    });
  }

  // ---------------------------------------------------------------- assignment and positions

  /**
   * Replaces the assignment. A partition given with an `offset` starts there; one without keeps
   * its position if it was assigned before, else starts per `autoOffsetReset`.
   */
  assign(partitions: (TopicPartition & { offset?: number })[]): void {
    this.ensureOpen();
    const next = new Map<string, AssignedPartition>();
    for (const tp of partitions) {
      const key = tpKey(tp.topic, tp.partition);
      const state = this.assigned.get(key) ?? new AssignedPartition(tp.topic, tp.partition);
      next.set(key, state);
      if (tp.offset !== undefined) this.offsets.moveTo(state, tp.offset);
      else if (state.position === undefined && !state.reset)
        this.offsets.resetTo(state, this.offsets.initialReset);
    }
    this.assigned.clear();
    for (const [key, state] of next) this.assigned.set(key, state);
    this.fetcher.scheduleReconcile();
  }

  /** The current assignment. */
  assignment(): TopicPartition[] {
    return [...this.assigned.values()].map((s) => ({ topic: s.topic, partition: s.partition }));
  }

  /** The next offset the application will get for `tp`; undefined while it is being resolved. */
  position(tp: TopicPartition): number | undefined {
    return this.state(tp).position;
  }

  /** Continues `tp` from `offset` (buffered data of it is dropped). */
  seek(tp: TopicPartition, offset: number): void {
    if (!Number.isInteger(offset) || offset < 0)
      throw new TideError('INVALID_REQUEST', `offset must be a non-negative integer, got ${offset}`);
    this.offsets.moveTo(this.state(tp), offset);
    this.fetcher.scheduleReconcile();
  }

  /** Continues from the log start offset; resolves once the offset is known. */
  seekToBeginning(tps?: TopicPartition[]): Promise<void> {
    return this.seekByReset(tps, 'earliest');
  }

  /** Continues from the high watermark (only new records); resolves once the offset is known. */
  seekToEnd(tps?: TopicPartition[]): Promise<void> {
    return this.seekByReset(tps, 'latest');
  }

  /** Continues from the first record with timestamp >= timestampMs (the end when none). */
  seekToTimestamp(timestampMs: number, tps?: TopicPartition[]): Promise<void> {
    return this.seekByReset(tps, { timestampMs });
  }

  /** Stops fetching `tps`; their buffered records are dropped and refetched on resume. */
  pause(tps: TopicPartition[]): void {
    for (const tp of tps) this.state(tp).pause();
    this.fetcher.scheduleReconcile();
  }

  resume(tps: TopicPartition[]): void {
    for (const tp of tps) this.state(tp).resume();
    this.fetcher.scheduleReconcile();
  }

  paused(): TopicPartition[] {
    return [...this.assigned.values()]
      .filter((s) => s.paused)
      .map((s) => ({ topic: s.topic, partition: s.partition }));
  }

  // ---------------------------------------------------------------- reading

  /**
   * The fast path: yields the records of one fetched chunk of one partition at a time, until
   * close(). A partition's terminal error (e.g. OFFSET_OUT_OF_RANGE with autoOffsetReset 'none')
   * is thrown from the iterator; iterate again after a seek to go on.
   */
  async *batches(): AsyncGenerator<ConsumerBatch, void, undefined> {
    for (;;) {
      const chunk = await this.fetcher.next();
      if (!chunk) return;
      chunk.state.position = chunk.batch.nextOffset;
      yield chunk.batch;
    }
  }

  /** One record at a time, `{topic, partition, offset, timestampMs, key, value, headers}`. */
  async *[Symbol.asyncIterator](): AsyncGenerator<ConsumerRecord, void, undefined> {
    for (;;) {
      const chunk = await this.fetcher.next();
      if (!chunk) return;
      const { state, batch, generation } = chunk;
      for (const r of batch.records) {
        if (state.generation !== generation) break; // sought or paused meanwhile
        state.position = r.offset + 1;
        yield {
          topic: batch.topic,
          partition: batch.partition,
          offset: r.offset,
          timestampMs: r.timestampMs,
          key: r.key,
          value: r.value,
          headers: r.headers,
        };
      }
      if (state.generation === generation) state.position = batch.nextOffset;
    }
  }

  /**
   * One unary (long-polling) Fetch of one partition, independent of the assignment and its
   * positions. Retriable errors are retried after a metadata refresh.
   */
  async fetch(tp: TopicPartition, offset: number, options: FetchOptions = {}): Promise<FetchResult> {
    const maxWaitMs = options.maxWaitMs ?? 0;
    const response = await this.cluster.withLeader(
      tp,
      (address) =>
        this.cluster.calls.fetch(address, {
          topic: tp.topic,
          partition: tp.partition,
          offset,
          max_bytes: options.maxBytes ?? this.fetcher.maxBytes,
          max_wait_ms: maxWaitMs,
          min_bytes: options.minBytes ?? 0,
          format: 'RECORD_FORMAT_BATCHES',
          isolation: wireIsolation(this.isolation),
        }),
      this.retryOptions,
      this.clock,
    );
    const fetched = splitFetched(response.record_batches);
    const { checked, error, stopOffset } = checkFetched(fetched.complete, offset, tp, abortedOf(response));
    if (error && checked.count === 0) throw error;
    const nextOffset = error
      ? (stopOffset as number)
      : nextFetchOffset(fetched, response.next_offset, offset).nextOffset;
    return {
      topic: tp.topic,
      partition: tp.partition,
      records: checked.records(),
      recordSlices: (size) => checked.slices(size),
      forEachRecord: (visit) => checked.forEach(visit),
      recordCount: checked.count,
      recordBatches: checked.bytes,
      highWatermark: response.high_watermark,
      logStartOffset: response.log_start_offset,
      nextOffset,
    };
  }

  /** Offsets of a partition: 'earliest' (log start), 'latest' (high watermark), or by timestamp (-1 when none). */
  listOffset(tp: TopicPartition, spec: Reset): Promise<ListedOffset> {
    return this.offsets.listOffset(tp, spec);
  }

  /** Stops every stream; iterators end. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fetcher.close();
    if (this.ownsCluster) this.cluster.close();
  }

  // ---------------------------------------------------------------- helpers

  private async seekByReset(tps: TopicPartition[] | undefined, reset: Reset): Promise<void> {
    const states = tps ? tps.map((tp) => this.state(tp)) : [...this.assigned.values()];
    await this.offsets.seekByReset(states, reset);
  }

  private state(tp: TopicPartition): AssignedPartition {
    const state = this.assigned.get(tpKey(tp.topic, tp.partition));
    if (!state)
      throw new TideError('INVALID_REQUEST', `${tp.topic}/${tp.partition} is not assigned to this consumer`, {
        context: tp,
      });
    return state;
  }

  private ensureOpen(): void {
    if (this.closed) throw new TideError('INVALID_REQUEST', 'the consumer is closed');
  }
}
