/**
 * The consumer's fetch-stream manager: FetchStreams to each leader broker for the assigned
 * partitions that have a position (one per STREAM_MAX_POSITIONS of them), and the buffer between
 * the streams and the application.
 *
 * `reconcile` (scheduled after any change: assignment, seek, pause, a stream ending, an error)
 * makes the open streams match the assignment: partitions grouped by leader and cut into slices
 * in (topic, partition) order, a stream reopened only when its slice's set of (partition, stream
 * epoch) changed. Responses are split into complete
 * batches and queued; above `maxBufferedBytes` every stream pauses (HTTP/2 backpressure) until
 * the buffer is half empty. `next()` hands out the next chunk, checked in full (CRC, layout,
 * every record) before the position can move past it.
 *
 * Per-partition errors: OFFSET_OUT_OF_RANGE follows the reset policy, retriable ones refresh
 * metadata and reopen with backoff, a batch failing its CRC is refetched a few times, anything
 * else is surfaced (thrown from the iterator) and the partition waits for a seek.
 *
 * A partition the metadata does not name yet is not an error at once: partitions added to a topic
 * reach the group coordinator (which assigns them) and the brokers before this client's metadata
 * watch, so the metadata is refetched (Cluster.topicWithPartition) and the partition surfaces
 * UNKNOWN_PARTITION only when fresh metadata still lacks it. Likewise a leader that answers
 * UNKNOWN_PARTITION / UNKNOWN_TOPIC for a partition the metadata names (its own view lags).
 */
import type { Clock } from '../../services/common/clock';
import type { TideError } from '../../services/common/errors';
import type { Logger } from '../../services/common/logger';
import type { FetchResponse } from '../../services/common/grpc/generated/tide/v1/FetchResponse';
import { ROUTING_ERRORS, type Cluster } from '../cluster';
import { partitionError } from '../net/broker-calls';
import type { FetchSession } from '../net/fetch-session';
import { backoffMs, type RetryOptions } from '../retry';
import { tpKey, type ConsumerBatch } from '../types';
import {
  abortedOf,
  checkFetched,
  nextFetchOffset,
  splitFetched,
  wireIsolation,
  type IsolationLevel,
} from './fetch-decode';
import { FetchedBatch } from './fetched-batch';
import type { OffsetResolver } from './offsets';
import type { AssignedPartition, Entry } from './partition-state';

const MAX_BYTES_LIMIT = 32 * 1024 * 1024;
/**
 * Positions one FetchStream names: the broker's default fetchStreamMaxPositions, which refuses a
 * stream naming more (INVALID_REQUEST); a consumer of more partitions on one leader opens more.
 */
export const STREAM_MAX_POSITIONS = 1_000;
/**
 * Longest stretch `next()` hands out buffered chunks without letting the event loop run its I/O.
 * A chunk already buffered is handed out through promises alone (microtasks), so a reader that
 * never waits on anything else would otherwise go through the whole buffer (up to
 * maxBufferedBytes, seconds of processing) with the process's sockets and timers unattended:
 * its producer's answers, its group heartbeats, the fetch streams themselves.
 */
export const FETCH_YIELD_INTERVAL_MS = 10;

export interface FetcherSettings {
  maxBytes: number;
  maxBufferedBytes: number;
  isolation: IsolationLevel;
  retry: Omit<RetryOptions, 'signal'>;
  clock: Clock;
  logger: Logger;
}

/** A chunk of checked records of one partition, and the generation it was fetched in. */
export interface Chunk {
  state: AssignedPartition;
  generation: number;
  batch: ConsumerBatch;
}

export class FetchManager {
  /** Byte limit per response; doubled (up to 32 MiB) when one batch does not fit. */
  maxBytes: number;
  private readonly maxBufferedBytes: number;
  private readonly isolation: IsolationLevel;
  private readonly retryOptions: Omit<RetryOptions, 'signal'>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** Open streams by slot: the leader's address and the slice's index (`address#i`). */
  private readonly sessions = new Map<string, FetchSession>();
  private readonly sessionSlots = new Map<FetchSession, string>();
  private readonly sessionStates = new Map<FetchSession, Map<string, AssignedPartition>>();
  private queue: Entry[] = [];
  private queueHead = 0;
  private buffered = 0;
  private streamsPaused = false;
  private waiters: (() => void)[] = [];
  /** When `next()` last let the event loop turn (performance.now(): real time, whatever the clock). */
  private lastTurnMs = performance.now();
  private reconcileScheduled = false;
  private reconcileTimer: { cancel(): void } | undefined;
  private reconcileAtMs = Infinity;
  /** Partitions waiting for metadata that names them (one lookup each at a time). */
  private readonly awaitingMetadata = new Set<AssignedPartition>();
  private closed = false;

  constructor(
    private readonly cluster: Cluster,
    /** The consumer's assignment (the consumer changes it, the manager follows). */
    private readonly assigned: ReadonlyMap<string, AssignedPartition>,
    private readonly offsets: OffsetResolver,
    settings: FetcherSettings,
  ) {
    this.maxBytes = settings.maxBytes;
    this.maxBufferedBytes = settings.maxBufferedBytes;
    this.isolation = settings.isolation;
    this.retryOptions = settings.retry;
    this.clock = settings.clock;
    this.logger = settings.logger;
  }

  /** Stops every stream and drops the buffer; `next()` answers undefined from now on. */
  close(): void {
    this.closed = true;
    this.reconcileTimer?.cancel();
    for (const session of this.sessions.values()) session.cancel();
    this.sessions.clear();
    this.sessionSlots.clear();
    this.sessionStates.clear();
    this.queue = [];
    this.queueHead = 0;
    this.wake();
  }

  isAssigned(state: AssignedPartition): boolean {
    return this.assigned.get(tpKey(state.topic, state.partition)) === state;
  }

  // ---------------------------------------------------------------- the buffer

  /** The next chunk of checked records (waiting for one), or undefined once closed. */
  async next(): Promise<Chunk | undefined> {
    if (performance.now() - this.lastTurnMs >= FETCH_YIELD_INTERVAL_MS) await this.letEventLoopTurn();
    for (;;) {
      if (this.closed) return undefined;
      const entry = this.dequeue();
      if (!entry) {
        await new Promise<void>((resolve) => this.waiters.push(resolve));
        this.lastTurnMs = performance.now();
        continue;
      }
      const { state } = entry;
      if (entry.generation !== state.generation || !this.isAssigned(state) || state.paused) continue;
      if (entry.kind === 'error') throw entry.error;
      const chunk = this.decodeEntry(entry);
      if (chunk) return chunk;
    }
  }

  /** setImmediate's callbacks run after the poll phase: the I/O that arrived meanwhile is handled first. */
  private async letEventLoopTurn(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.lastTurnMs = performance.now();
  }

  private decodeEntry(entry: Extract<Entry, { kind: 'data' }>): Chunk | undefined {
    const { state, response } = entry;
    const from = state.position ?? entry.fromOffset;
    const { checked, error, stopOffset } = checkFetched(entry.complete, from, state, abortedOf(response));
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
        this.offsets.moveTo(state, nextOffset, false);
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

  /** Reconciles the streams soon (now: in a microtask; with a delay: at the earliest one asked). */
  scheduleReconcile(delayMs = 0): void {
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
    const groups = new Map<string, AssignedPartition[]>();
    for (const state of this.assigned.values()) {
      if (state.paused || state.error) continue;
      if (state.position === undefined) {
        if (state.reset) void this.offsets.resolve(state);
        continue;
      }
      if (!this.cluster.cachedTopic(state.topic)?.partitions[state.partition]) {
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
    const slices = new Map<string, { address: string; states: AssignedPartition[] }>();
    for (const [address, states] of groups) {
      states.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
      for (let first = 0; first < states.length; first += STREAM_MAX_POSITIONS) {
        const slot = `${address}#${first / STREAM_MAX_POSITIONS}`;
        slices.set(slot, { address, states: states.slice(first, first + STREAM_MAX_POSITIONS) });
      }
    }
    for (const [slot, session] of this.sessions) {
      if (!slices.has(slot)) this.dropSession(session);
    }
    for (const [slot, { address, states }] of slices) {
      const key = states.map((s) => `${s.topic}/${s.partition}@${s.streamEpoch}`).join(',');
      const existing = this.sessions.get(slot);
      if (existing && existing.alive && existing.key === key) continue;
      if (existing) this.dropSession(existing);
      this.openSession(slot, address, key, states);
    }
  }

  private openSession(slot: string, address: string, key: string, states: AssignedPartition[]): void {
    const byKey = new Map<string, AssignedPartition>();
    const positions = states.map((s) => {
      byKey.set(tpKey(s.topic, s.partition), s);
      return { topic: s.topic, partition: s.partition, offset: s.fetchOffset };
    });
    let session: FetchSession;
    try {
      session = this.cluster.calls.fetchStream(
        address,
        key,
        positions,
        this.maxBytes,
        {
          onData: (s, response) => this.onData(s, response),
          onEnd: (s, error) => this.onSessionEnd(s, error),
        },
        wireIsolation(this.isolation),
      );
    } catch (err) {
      // The connections are gone (the cluster was closed under this consumer).
      for (const state of states) this.surface(state, err as TideError);
      return;
    }
    if (this.streamsPaused) session.pause();
    this.sessions.set(slot, session);
    this.sessionSlots.set(session, slot);
    this.sessionStates.set(session, byKey);
  }

  private dropSession(session: FetchSession): void {
    session.cancel();
    this.forget(session);
  }

  private forget(session: FetchSession): void {
    this.sessionStates.delete(session);
    const slot = this.sessionSlots.get(session);
    this.sessionSlots.delete(session);
    if (slot !== undefined && this.sessions.get(slot) === session) this.sessions.delete(slot);
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
    this.forget(session);
    if (!states) return;
    this.logger.debug({ address: session.address, code: error.code }, 'fetch stream ended; reopening');
    for (const state of states.values()) {
      if (!this.isAssigned(state) || state.error) continue;
      this.backOff(state, error);
    }
    this.scheduleReconcile();
  }

  /**
   * Fetches metadata naming the partition (its topic or the partition itself is not cached, or its
   * leader did not know it), then reconciles; surfaces UNKNOWN_TOPIC / UNKNOWN_PARTITION when the
   * fresh metadata lacks it too.
   */
  private loadMetadata(state: AssignedPartition): void {
    if (this.awaitingMetadata.has(state)) return;
    this.awaitingMetadata.add(state);
    void this.cluster
      .topicWithPartition(state.topic, state.partition)
      .finally(() => this.awaitingMetadata.delete(state))
      .then(
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

  private onPartitionError(state: AssignedPartition, error: TideError): void {
    const autoOffsetReset = this.offsets.autoOffsetReset;
    if (error.code === 'OFFSET_OUT_OF_RANGE' && autoOffsetReset !== 'none') {
      this.logger.info(
        {
          topic: state.topic,
          partition: state.partition,
          offset: state.fetchOffset,
          reset: autoOffsetReset,
        },
        'offset out of range; resetting',
      );
      // Guard against a reset loop: a second reset in a row waits like a failed fetch.
      if (state.failures > 0) this.backOff(state, error);
      else state.failures++;
      this.offsets.resetTo(state, autoOffsetReset);
      this.scheduleReconcile();
      return;
    }
    if (error.code === 'UNKNOWN_PARTITION' || error.code === 'UNKNOWN_TOPIC') {
      // The leader's view may lag the metadata that named it (a partition just added).
      this.cluster.invalidate(state.topic);
      this.backOff(state, error);
      this.loadMetadata(state);
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
  surface(state: AssignedPartition, error: TideError): void {
    state.error = error;
    state.streamEpoch++;
    this.enqueue({ kind: 'error', state, generation: state.generation, error });
    this.scheduleReconcile();
  }

  private backOff(state: AssignedPartition, error: TideError): void {
    state.failures++;
    state.streamEpoch++;
    const delayMs = backoffMs(state.failures, this.retryOptions);
    state.retryAtMs = this.clock.nowMs() + delayMs;
    this.logger.debug(
      { topic: state.topic, partition: state.partition, code: error.code, delayMs },
      'partition fetch failed; backing off',
    );
  }
}
