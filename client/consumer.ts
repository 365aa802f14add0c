/**
 * The consumer: reads assigned partitions from any offset over one FetchStream per leader
 * broker, decoding record batches client-side.
 *
 * Each assigned partition keeps two offsets: `position` (the next offset the application gets)
 * and `fetchOffset` (where the stream's data ends; data between them is buffered). A seek bumps
 * the partition's `generation`, which invalidates buffered data, and its `streamEpoch`, which
 * makes the stream to its leader be reopened from the new offset. Pause drops buffered data and
 * takes the partition out of its stream; resume puts it back at `position`.
 *
 * Consumer groups: `GroupConsumer` (client/group/group-consumer.ts, `tide.consumer({ groupId })`)
 * drives `assign()` from the group's assignment and starts partitions at committed offsets.
 */
import type { Clock } from '../services/common/clock';
import { TideError } from '../services/common/errors';
import type { Logger } from '../services/common/logger';
import type { FetchResponse } from '../services/common/grpc/generated/tide/v1/FetchResponse';
import type { OffsetSpec } from '../services/common/grpc/generated/tide/v1/OffsetSpec';
import { Cluster, ROUTING_ERRORS, type ClusterOptions } from './cluster';
import { partitionError } from './net/broker-calls';
import { checkFetched, nextFetchOffset, splitFetched } from './fetch-decode';
import { FetchedBatch } from './fetched-batch';
import type { FetchSession } from './net/fetch-session';
import { backoffMs, DEFAULT_RETRY, retry, type RetryOptions } from './retry';
import { tpKey, type ConsumerBatch, type ConsumerRecord, type TopicPartition } from './types';

export type AutoOffsetReset = 'earliest' | 'latest' | 'none';

export interface ConsumerOptions {
  /**
   * Where to start a partition assigned without an offset, or whose offset fell out of range:
   * 'earliest', 'latest', or 'none' (surface the error; seek to continue). Default 'latest'.
   */
  autoOffsetReset?: AutoOffsetReset;
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
const MAX_BYTES_LIMIT = 32 * 1024 * 1024;

type Reset = 'earliest' | 'latest' | { timestampMs: number };

class Assigned {
  position: number | undefined;
  fetchOffset = 0;
  paused = false;
  generation = 0;
  streamEpoch = 0;
  /** How to find the position when it is undefined. */
  reset: Reset | undefined;
  resolving: Promise<void> | undefined;
  /** A terminal error of this partition; cleared by a seek. */
  error: TideError | undefined;
  retryAtMs = 0;
  failures = 0;
  /** Consecutive chunks that failed their CRC check. */
  corruptions = 0;
  highWatermark = -1;
  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}
}

type Entry =
  | {
      kind: 'data';
      state: Assigned;
      generation: number;
      response: FetchResponse;
      /** The complete batches of the response. */
      complete: Buffer;
      fromOffset: number;
      nextOffset: number;
      bytes: number;
    }
  | { kind: 'error'; state: Assigned; generation: number; error: TideError };

export class Consumer implements AsyncIterable<ConsumerRecord> {
  readonly cluster: Cluster;
  private readonly ownsCluster: boolean;
  private readonly autoOffsetReset: AutoOffsetReset;
  private maxBytes: number;
  private readonly maxBufferedBytes: number;
  private readonly retryOptions: Omit<RetryOptions, 'signal'>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly assigned = new Map<string, Assigned>();
  private readonly sessions = new Map<string, FetchSession>();
  private readonly sessionStates = new Map<FetchSession, Map<string, Assigned>>();
  private queue: Entry[] = [];
  private queueHead = 0;
  private buffered = 0;
  private streamsPaused = false;
  private waiters: (() => void)[] = [];
  private reconcileScheduled = false;
  private reconcileTimer: { cancel(): void } | undefined;
  private reconcileAtMs = Infinity;
  private closed = false;

  constructor(cluster: Cluster | ClusterOptions, options: ConsumerOptions = {}) {
    this.ownsCluster = !(cluster instanceof Cluster);
    this.cluster = cluster instanceof Cluster ? cluster : new Cluster(cluster);
    this.autoOffsetReset = options.autoOffsetReset ?? 'latest';
    if (!['earliest', 'latest', 'none'].includes(this.autoOffsetReset)) {
      throw new TideError(
        'INVALID_REQUEST',
        `autoOffsetReset must be 'earliest', 'latest' or 'none', not '${this.autoOffsetReset}'`,
      );
    }
    this.maxBytes = options.maxBytes ?? DEFAULT_CONSUMER_MAX_BYTES;
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_CONSUMER_MAX_BUFFERED_BYTES;
    this.retryOptions = { ...DEFAULT_RETRY, ...options.retry };
    this.clock = options.clock ?? this.cluster.clock;
    this.logger = (options.logger ?? this.cluster.logger).child({ component: 'consumer' });
  }

  // ---------------------------------------------------------------- assignment and positions

  /**
   * Replaces the assignment. A partition given with an `offset` starts there; one without keeps
   * its position if it was assigned before, else starts per `autoOffsetReset`.
   */
  assign(partitions: (TopicPartition & { offset?: number })[]): void {
    this.ensureOpen();
    const next = new Map<string, Assigned>();
    for (const tp of partitions) {
      const key = tpKey(tp.topic, tp.partition);
      const state = this.assigned.get(key) ?? new Assigned(tp.topic, tp.partition);
      next.set(key, state);
      if (tp.offset !== undefined) this.moveTo(state, tp.offset);
      else if (state.position === undefined && !state.reset)
        this.resetTo(state, this.autoOffsetReset === 'none' ? undefined : this.autoOffsetReset);
    }
    this.assigned.clear();
    for (const [key, state] of next) this.assigned.set(key, state);
    this.scheduleReconcile();
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
    this.moveTo(this.state(tp), offset);
    this.scheduleReconcile();
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
    for (const tp of tps) {
      const state = this.state(tp);
      if (state.paused) continue;
      state.paused = true;
      state.generation++;
      state.streamEpoch++;
      if (state.position !== undefined) state.fetchOffset = state.position;
    }
    this.scheduleReconcile();
  }

  resume(tps: TopicPartition[]): void {
    for (const tp of tps) {
      const state = this.state(tp);
      if (!state.paused) continue;
      state.paused = false;
      state.streamEpoch++;
    }
    this.scheduleReconcile();
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
      const chunk = await this.nextChunk();
      if (!chunk) return;
      chunk.state.position = chunk.batch.nextOffset;
      yield chunk.batch;
    }
  }

  /** One record at a time, `{topic, partition, offset, timestampMs, key, value, headers}`. */
  async *[Symbol.asyncIterator](): AsyncGenerator<ConsumerRecord, void, undefined> {
    for (;;) {
      const chunk = await this.nextChunk();
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
    const response = await this.withLeader(tp, (address) =>
      this.cluster.calls.fetch(address, {
        topic: tp.topic,
        partition: tp.partition,
        offset,
        max_bytes: options.maxBytes ?? this.maxBytes,
        max_wait_ms: maxWaitMs,
        min_bytes: options.minBytes ?? 0,
        format: 'RECORD_FORMAT_BATCHES',
      }),
    );
    const fetched = splitFetched(response.record_batches);
    const { checked, error, stopOffset } = checkFetched(fetched.complete, offset, tp);
    if (error && checked.count === 0) throw error;
    const nextOffset = error
      ? (stopOffset as number)
      : nextFetchOffset(fetched, response.next_offset, offset).nextOffset;
    return {
      topic: tp.topic,
      partition: tp.partition,
      records: checked.records(),
      recordCount: checked.count,
      recordBatches: checked.bytes,
      highWatermark: response.high_watermark,
      logStartOffset: response.log_start_offset,
      nextOffset,
    };
  }

  /** Offsets of a partition: 'earliest' (log start), 'latest' (high watermark), or by timestamp (-1 when none). */
  async listOffset(
    tp: TopicPartition,
    spec: Reset,
  ): Promise<{ offset: number; timestampMs: number; logStartOffset: number; highWatermark: number }> {
    const wireSpec: OffsetSpec =
      spec === 'earliest'
        ? 'OFFSET_SPEC_EARLIEST'
        : spec === 'latest'
          ? 'OFFSET_SPEC_LATEST'
          : 'OFFSET_SPEC_TIMESTAMP';
    const r = await this.withLeader(tp, (address) =>
      this.cluster.calls.listOffsets(address, {
        topic: tp.topic,
        partition: tp.partition,
        spec: wireSpec,
        timestamp_ms: typeof spec === 'object' ? spec.timestampMs : 0,
      }),
    );
    return {
      offset: r.offset,
      timestampMs: r.timestamp_ms,
      logStartOffset: r.log_start_offset,
      highWatermark: r.high_watermark,
    };
  }

  /** Stops every stream; iterators end. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reconcileTimer?.cancel();
    for (const session of this.sessions.values()) session.cancel();
    this.sessions.clear();
    this.sessionStates.clear();
    this.queue = [];
    this.queueHead = 0;
    this.wake();
    if (this.ownsCluster) this.cluster.close();
  }

  // ---------------------------------------------------------------- the buffer

  private async nextChunk(): Promise<
    { state: Assigned; generation: number; batch: ConsumerBatch } | undefined
  > {
    for (;;) {
      if (this.closed) return undefined;
      const entry = this.dequeue();
      if (!entry) {
        await new Promise<void>((resolve) => this.waiters.push(resolve));
        continue;
      }
      const { state } = entry;
      if (entry.generation !== state.generation || !this.isAssigned(state) || state.paused) continue;
      if (entry.kind === 'error') throw entry.error;
      const chunk = this.decodeEntry(entry);
      if (chunk) return chunk;
    }
  }

  private decodeEntry(
    entry: Extract<Entry, { kind: 'data' }>,
  ): { state: Assigned; generation: number; batch: ConsumerBatch } | undefined {
    const { state, response } = entry;
    const from = state.position ?? entry.fromOffset;
    const { checked, error, stopOffset } = checkFetched(entry.complete, from, state);
    state.highWatermark = response.high_watermark;
    let nextOffset = entry.nextOffset;
    let generation = entry.generation;
    if (!error) {
      state.corruptions = 0;
    } else {
      nextOffset = stopOffset as number;
      state.corruptions++;
      if (!error.retriable || state.corruptions >= this.retryOptions.attempts) {
        // Stop fetching the partition until the application seeks; it gets the good records first.
        state.error = error;
        state.streamEpoch++;
        this.queue.splice(this.queueHead, 0, { kind: 'error', state, generation, error });
        this.scheduleReconcile();
      } else {
        // Corrupted in transit, probably: fetch it again from the bad batch, after a pause.
        this.logger.warn(
          { err: error, topic: state.topic, partition: state.partition },
          'refetching a corrupt batch',
        );
        this.moveTo(state, nextOffset, false);
        state.retryAtMs = this.clock.nowMs() + backoffMs(state.corruptions, this.retryOptions);
        generation = state.generation;
        this.scheduleReconcile();
      }
    }
    if (checked.count === 0) {
      if (!error) state.position = Math.max(from, nextOffset);
      return undefined;
    }
    const batch = new FetchedBatch(
      state.topic,
      state.partition,
      checked,
      response.high_watermark,
      error ? nextOffset : Math.max(nextOffset, checked.endOffset as number),
    );
    return { state, generation, batch };
  }

  private enqueue(entry: Entry): void {
    this.queue.push(entry);
    if (entry.kind === 'data') {
      this.buffered += entry.bytes;
      if (this.buffered > this.maxBufferedBytes && !this.streamsPaused) {
        this.streamsPaused = true;
        for (const session of this.sessions.values()) session.pause();
      }
    }
    this.wake();
  }

  private dequeue(): Entry | undefined {
    if (this.queueHead >= this.queue.length) return undefined;
    const entry = this.queue[this.queueHead++];
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
    if (entry.kind === 'data') {
      this.buffered -= entry.bytes;
      if (this.streamsPaused && this.buffered <= this.maxBufferedBytes / 2) {
        this.streamsPaused = false;
        for (const session of this.sessions.values()) session.resume();
      }
    }
    return entry;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  // ---------------------------------------------------------------- streams

  private scheduleReconcile(delayMs = 0): void {
    if (this.closed) return;
    if (delayMs > 0) {
      const at = this.clock.nowMs() + delayMs;
      if (at >= this.reconcileAtMs) return;
      this.reconcileTimer?.cancel();
      this.reconcileAtMs = at;
      this.reconcileTimer = this.clock.setTimeout(() => {
        this.reconcileAtMs = Infinity;
        this.reconcileTimer = undefined;
        this.scheduleReconcile();
      }, delayMs);
      return;
    }
    if (this.reconcileScheduled) return;
    this.reconcileScheduled = true;
    queueMicrotask(() => {
      this.reconcileScheduled = false;
      this.reconcile();
    });
  }

  /** Makes the open streams match the assignment: one per leader, with the right positions. */
  private reconcile(): void {
    if (this.closed) return;
    const nowMs = this.clock.nowMs();
    const groups = new Map<string, Assigned[]>();
    for (const state of this.assigned.values()) {
      if (state.paused || state.error) continue;
      if (state.position === undefined) {
        if (state.reset) void this.resolvePosition(state);
        continue;
      }
      if (!this.cluster.cachedTopic(state.topic)) {
        this.loadMetadata(state);
        continue;
      }
      if (state.retryAtMs > nowMs) {
        this.scheduleReconcile(state.retryAtMs - nowMs);
        continue;
      }
      let address: string;
      try {
        address = this.cluster.leaderFor(state.topic, state.partition);
      } catch (err) {
        this.onPartitionError(state, err as TideError);
        continue;
      }
      let group = groups.get(address);
      if (!group) groups.set(address, (group = []));
      group.push(state);
    }
    for (const [address, session] of this.sessions) {
      if (!groups.has(address)) this.dropSession(address, session);
    }
    for (const [address, states] of groups) {
      const key = states
        .map((s) => `${s.topic}/${s.partition}@${s.streamEpoch}`)
        .sort()
        .join(',');
      const existing = this.sessions.get(address);
      if (existing && existing.alive && existing.key === key) continue;
      if (existing) this.dropSession(address, existing);
      this.openSession(address, key, states);
    }
  }

  private openSession(address: string, key: string, states: Assigned[]): void {
    const byKey = new Map<string, Assigned>();
    const positions = states.map((s) => {
      byKey.set(tpKey(s.topic, s.partition), s);
      return { topic: s.topic, partition: s.partition, offset: s.fetchOffset };
    });
    let session: FetchSession;
    try {
      session = this.cluster.calls.fetchStream(address, key, positions, this.maxBytes, {
        onData: (s, response) => this.onData(s, response),
        onEnd: (s, error) => this.onSessionEnd(s, error),
      });
    } catch (err) {
      // The connections are gone (the cluster was closed under this consumer).
      for (const state of states) this.surface(state, err as TideError);
      return;
    }
    if (this.streamsPaused) session.pause();
    this.sessions.set(address, session);
    this.sessionStates.set(session, byKey);
  }

  private dropSession(address: string, session: FetchSession): void {
    session.cancel();
    this.sessionStates.delete(session);
    if (this.sessions.get(address) === session) this.sessions.delete(address);
  }

  private onData(session: FetchSession, response: FetchResponse): void {
    const state = this.sessionStates.get(session)?.get(tpKey(response.topic, response.partition));
    if (!state || !this.isAssigned(state)) return;
    if (response.error) {
      this.onPartitionError(state, partitionError(response.error, state.topic, state.partition));
      return;
    }
    state.failures = 0;
    state.highWatermark = response.high_watermark;
    const fromOffset = state.fetchOffset;
    const fetched = splitFetched(response.record_batches);
    const { nextOffset, truncated } = nextFetchOffset(fetched, response.next_offset, fromOffset);
    state.fetchOffset = nextOffset;
    if (fetched.complete.length > 0) {
      this.enqueue({
        kind: 'data',
        state,
        generation: state.generation,
        response,
        complete: fetched.complete,
        fromOffset,
        nextOffset,
        bytes: response.record_batches.length,
      });
    }
    if (truncated) {
      // The broker moved past a batch it cut short: reopen from that batch.
      if (fetched.complete.length === 0) this.maxBytes = Math.min(MAX_BYTES_LIMIT, this.maxBytes * 2);
      state.streamEpoch++;
      this.scheduleReconcile();
    }
  }

  private onSessionEnd(session: FetchSession, error: TideError): void {
    const states = this.sessionStates.get(session);
    this.sessionStates.delete(session);
    if (this.sessions.get(session.address) === session) this.sessions.delete(session.address);
    if (!states) return;
    this.logger.debug({ address: session.address, code: error.code }, 'fetch stream ended; reopening');
    for (const state of states.values()) {
      if (!this.isAssigned(state) || state.error) continue;
      this.backOff(state, error);
    }
    this.scheduleReconcile();
  }

  /** Fetches metadata of a topic not in the cache, then reconciles (or surfaces UNKNOWN_TOPIC). */
  private loadMetadata(state: Assigned): void {
    void this.cluster.topicMetadata(state.topic).then(
      () => this.scheduleReconcile(),
      (err: unknown) => {
        if (!this.isAssigned(state)) return;
        const e = err as TideError;
        if (e.retriable) {
          this.backOff(state, e);
          this.scheduleReconcile(state.retryAtMs - this.clock.nowMs());
        } else {
          this.surface(state, e);
        }
      },
    );
  }

  private onPartitionError(state: Assigned, error: TideError): void {
    if (error.code === 'OFFSET_OUT_OF_RANGE' && this.autoOffsetReset !== 'none') {
      this.logger.info(
        {
          topic: state.topic,
          partition: state.partition,
          offset: state.fetchOffset,
          reset: this.autoOffsetReset,
        },
        'offset out of range; resetting',
      );
      // Guard against a reset loop: a second reset in a row waits like a failed fetch.
      if (state.failures > 0) this.backOff(state, error);
      else state.failures++;
      this.resetTo(state, this.autoOffsetReset);
      this.scheduleReconcile();
      return;
    }
    if (error.retriable) {
      if (ROUTING_ERRORS.has(error.code)) this.cluster.invalidate(state.topic);
      this.backOff(state, error);
      void this.cluster.topicMetadata(state.topic, true).then(
        () => this.scheduleReconcile(),
        (err: unknown) => {
          const e = err as TideError;
          if (!e.retriable && e.code !== 'BROKER_NOT_AVAILABLE') this.surface(state, e);
          else this.scheduleReconcile(state.retryAtMs - this.clock.nowMs());
        },
      );
      return;
    }
    this.surface(state, error);
  }

  /** Hands a terminal error of a partition to the application; the partition waits for a seek. */
  private surface(state: Assigned, error: TideError): void {
    state.error = error;
    state.streamEpoch++;
    this.enqueue({ kind: 'error', state, generation: state.generation, error });
    this.scheduleReconcile();
  }

  private backOff(state: Assigned, error: TideError): void {
    state.failures++;
    state.streamEpoch++;
    const delayMs = backoffMs(state.failures, this.retryOptions);
    state.retryAtMs = this.clock.nowMs() + delayMs;
    this.logger.debug(
      { topic: state.topic, partition: state.partition, code: error.code, delayMs },
      'partition fetch failed; backing off',
    );
  }

  // ---------------------------------------------------------------- offsets

  private moveTo(state: Assigned, offset: number, clearBackoff = true): void {
    state.position = offset;
    state.fetchOffset = offset;
    state.reset = undefined;
    state.resolving = undefined;
    state.error = undefined;
    if (clearBackoff) state.retryAtMs = 0;
    state.generation++;
    state.streamEpoch++;
  }

  /** Forgets the position; it is looked up per `reset` (undefined: the partition waits for a seek). */
  private resetTo(state: Assigned, reset: Reset | undefined): void {
    state.position = undefined;
    state.reset = reset;
    state.resolving = undefined;
    state.error = undefined;
    state.generation++;
    state.streamEpoch++;
    if (!reset)
      this.surface(
        state,
        new TideError(
          'OFFSET_OUT_OF_RANGE',
          `${state.topic}/${state.partition} has no position and autoOffsetReset is 'none': seek first`,
          { context: { topic: state.topic, partition: state.partition } },
        ),
      );
  }

  private async seekByReset(tps: TopicPartition[] | undefined, reset: Reset): Promise<void> {
    const states = tps ? tps.map((tp) => this.state(tp)) : [...this.assigned.values()];
    for (const state of states) this.resetTo(state, reset);
    this.scheduleReconcile();
    await Promise.all(states.map((s) => this.resolvePosition(s)));
    const failed = states.find((s) => s.error !== undefined);
    if (failed) throw failed.error;
  }

  /** Looks up the offset of a partition's pending reset (once; concurrent callers share it). */
  private resolvePosition(state: Assigned): Promise<void> {
    if (state.position !== undefined || !state.reset) return Promise.resolve();
    if (state.resolving) return state.resolving;
    const generation = state.generation;
    const reset = state.reset;
    const resolving = this.listOffset(state, reset).then(
      async (r) => {
        if (state.generation !== generation) return;
        let offset = r.offset;
        if (offset < 0) offset = (await this.listOffset(state, 'latest')).offset; // no record at/after the timestamp
        if (state.generation !== generation) return;
        this.moveTo(state, offset, false);
        this.scheduleReconcile();
      },
      (err: unknown) => {
        if (state.generation !== generation) return;
        state.resolving = undefined;
        this.surface(state, err as TideError);
      },
    );
    state.resolving = resolving;
    return resolving;
  }

  // ---------------------------------------------------------------- helpers

  private withLeader<T>(tp: TopicPartition, fn: (address: string) => Promise<T>): Promise<T> {
    return retry(
      async () => {
        try {
          return await fn(await this.cluster.leaderAddress(tp.topic, tp.partition));
        } catch (err) {
          if (ROUTING_ERRORS.has((err as TideError).code)) this.cluster.invalidate(tp.topic);
          throw err;
        }
      },
      this.retryOptions,
      { clock: this.clock },
    );
  }

  private state(tp: TopicPartition): Assigned {
    const state = this.assigned.get(tpKey(tp.topic, tp.partition));
    if (!state)
      throw new TideError('INVALID_REQUEST', `${tp.topic}/${tp.partition} is not assigned to this consumer`, {
        context: tp,
      });
    return state;
  }

  private isAssigned(state: Assigned): boolean {
    return this.assigned.get(tpKey(state.topic, state.partition)) === state;
  }

  private ensureOpen(): void {
    if (this.closed) throw new TideError('INVALID_REQUEST', 'the consumer is closed');
  }
}
