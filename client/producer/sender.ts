/**
 * The producer's sender: takes closed batches from the partitions' ready queues and pipelines
 * them to partition leaders over one ProduceStream per broker.
 *
 * Per partition:
 *   ready ──(in flight < maxInFlight)──▶ built (sequence assigned) ──▶ in flight ──▶ settled
 * An open batch is taken too once it is `eligible` (its linger expired, or a flush).
 *
 * Retries: when a batch comes back with a retriable error, the partition stops sending, waits for
 * its other in-flight batches to come back, re-queues every failed batch in its original order,
 * refreshes metadata, backs off, and resends — the same bytes, so with idempotence the broker
 * drops duplicates and order is kept. A non-retriable error with idempotence fails that batch and
 * every later batch of the partition (they would be out of sequence); once nothing is in flight
 * the partition gets a fresh producer id and starts over at sequence 0.
 *
 * Retries are bounded by time, not a count: a batch is retried until `deliveryTimeoutMs` has
 * passed since it was created (Kafka's delivery.timeout.ms), then fails with its last error.
 *
 * Leader moves: when the cluster's metadata names a new leader for a partition, an idempotent
 * producer re-sends that partition's in-flight batches to it at once, in order, instead of
 * waiting for the old leader (paused, cut off) or the request timeout; the broker drops
 * sequences it already has, and late answers from the old leader are ignored (`sentOn`).
 *
 * A stream that cannot take more writes (HTTP/2 backpressure) parks its partitions until it
 * drains; a request without a response for `requestTimeoutMs` breaks its stream (every request on
 * it fails retriably).
 */
import type { Clock } from '../../services/common/clock';
import { TideError } from '../../services/common/errors';
import type { Logger } from '../../services/common/logger';
import { NO_SEQUENCE, type BatchBuilder } from '../../services/common/records';
import type { ProduceResponse } from '../../services/common/grpc/generated/tide/v1/ProduceResponse';
import { ROUTING_ERRORS, type Cluster } from '../cluster';
import { BufferPool } from '../net/buffer-pool';
import type { ProduceStream } from '../net/produce-stream';
import { backoffMs, sleep, type RetryOptions } from '../retry';
import { encodeProduceBody, type AcksOption, type EncodedProduceRequest } from '../net/wire';
import type { RecordAccumulator } from './accumulator';
import { incrementSequence, type ProducerBatch } from './batch';
import type { ProducerIdentity } from './identity';
import { NO_IDENTITY, withContext, type PartitionState } from './state';

export interface SenderSettings {
  acks: AcksOption;
  idempotent: boolean;
  maxInFlight: number;
  batchBytes: number;
  maxBufferedBytes: number;
  retry: Omit<RetryOptions, 'signal'>;
  requestTimeoutMs: number;
  deliveryTimeoutMs: number;
  clock: Clock;
  logger: Logger;
  random: () => number;
  /**
   * A transactional producer's id: its batches carry the transactional bit and its requests the
   * id, so each partition's leader joins the partition to the transaction (KIP-890).
   */
  transactionalId?: string;
}

export class Sender {
  private readonly acks: AcksOption;
  private readonly idempotent: boolean;
  private readonly maxInFlight: number;
  private readonly retryOptions: Omit<RetryOptions, 'signal'>;
  private readonly requestTimeoutMs: number;
  private readonly deliveryTimeoutMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly random: () => number;
  private readonly requestBuffers: BufferPool;
  private readonly streams = new Map<string, ProduceStream<ProducerBatch>>();
  private readonly batchState = new WeakMap<ProducerBatch, PartitionState>();
  /** The stream each in-flight batch was last sent on; answers from any other are stale. */
  private readonly sentOn = new WeakMap<ProducerBatch, ProduceStream<ProducerBatch>>();
  private readonly unsubscribeLeaders: () => void;
  private readonly congested = new Set<PartitionState>();
  private readonly sweepTimer: { cancel(): void };
  private closed = false;
  private readonly transactionalId: string | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly accumulator: RecordAccumulator,
    private readonly identity: ProducerIdentity,
    settings: SenderSettings,
  ) {
    this.acks = settings.acks;
    this.idempotent = settings.idempotent;
    this.maxInFlight = settings.maxInFlight;
    this.retryOptions = settings.retry;
    this.requestTimeoutMs = settings.requestTimeoutMs;
    this.deliveryTimeoutMs = settings.deliveryTimeoutMs;
    this.clock = settings.clock;
    this.logger = settings.logger;
    this.random = settings.random;
    this.transactionalId = settings.transactionalId;
    this.requestBuffers = new BufferPool(
      settings.batchBytes + 4096,
      Math.min(settings.maxBufferedBytes, 16 * 1024 * 1024),
    );
    this.unsubscribeLeaders = cluster.onLeaderChange((topic, partition) =>
      this.onLeaderMoved(topic, partition),
    );
    this.sweepTimer = this.clock.setInterval(
      () => this.sweepTimeouts(),
      Math.max(10, Math.min(1_000, this.requestTimeoutMs / 4)),
    );
  }

  /** Stops sending: batches waiting for a retry fail, the streams are half-closed. */
  close(): void {
    this.closed = true;
    this.sweepTimer.cancel();
    this.unsubscribeLeaders();
    for (const stream of this.streams.values()) stream.end();
    this.streams.clear();
  }

  /** Sends what the partition may send now. */
  drain(state: PartitionState): void {
    if (state.broken) {
      if (state.inFlight.length === 0 && !state.identityPending) void this.resetIdentity(state);
      return;
    }
    if (state.recovering || state.identityPending || this.congested.has(state)) return;
    while (state.inFlight.length < this.maxInFlight) {
      let batch = state.ready.shift();
      if (!batch) {
        if (!state.open || !state.open.eligible) return;
        this.accumulator.closeOpen(state);
        batch = state.ready.shift() as ProducerBatch;
      }
      if (!batch.request) this.build(state, batch);
      if (!this.transmit(state, batch)) return;
    }
  }

  // ---------------------------------------------------------------- requests

  /** Final bytes: the batch gets its producer id, epoch and base sequence, and its request. */
  private build(state: PartitionState, batch: ProducerBatch): void {
    const identity = this.idempotent ? state.identity : NO_IDENTITY;
    batch.baseSequence = this.idempotent ? state.nextSequence : NO_SEQUENCE;
    const bytes = (batch.builder as BatchBuilder).build({
      producerId: identity.producerId,
      producerEpoch: identity.producerEpoch,
      baseSequence: batch.baseSequence,
      transactional: this.transactionalId !== undefined,
    });
    // Encoded once into a pooled buffer; the builder's memory is garbage from here on.
    batch.request = encodeProduceBody(
      {
        topic: state.topic,
        partition: state.partition,
        acks: this.acks,
        timeoutMs: this.requestTimeoutMs,
        recordBatches: bytes,
        transactionalId: this.transactionalId,
      },
      this.requestBuffers,
    );
    batch.builder = null;
    this.batchState.set(batch, state);
    // `bytes` was copied into the request: the builder's storage is free again.
    this.accumulator.releaseBuilderBuffer(batch);
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
      const created: ProduceStream<ProducerBatch> = this.cluster.calls.produceStream<ProducerBatch>(address, {
        onResponse: (batch, response, error) => this.onAnswer(created, batch, response, error),
        onWritten: (batch) => this.onAnswer(created, batch, undefined, undefined),
        onFailure: (batches, error) => {
          for (const batch of batches) this.onAnswer(created, batch, undefined, error);
        },
        onDrain: () => this.onStreamDrain(),
      });
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

  /** The metadata names a new leader for topic-partition: re-send its in-flight batches there now. */
  private onLeaderMoved(topic: string, partition: number): void {
    if (!this.idempotent || this.closed) return;
    const state = this.accumulator.stateOf(topic, partition);
    if (!state || state.inFlight.length === 0 || state.broken) return;
    let address: string;
    try {
      address = this.cluster.leaderFor(topic, partition);
    } catch {
      return; // no leader yet: the next metadata change tells
    }
    if (state.inFlight.every((b) => this.sentOn.get(b)?.address === address)) return;
    this.logger.info(
      { topic, partition, leader: address, batches: state.inFlight.length },
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

  // ---------------------------------------------------------------- results and retries

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
      this.accumulator.release(batch);
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
    const open = this.accumulator.abandonOpen(state);
    if (open) pending.push(open);
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
      const identity = await this.identity.fresh();
      state.identity = identity;
      state.nextSequence = 0;
      state.broken = false;
    } catch (err) {
      const error = withContext(err as TideError, state);
      this.logger.warn(
        { err: error, topic: state.topic, partition: state.partition },
        'could not get a fresh producer id',
      );
      const open = this.accumulator.abandonOpen(state);
      if (open) this.fail(open, error);
    } finally {
      state.identityPending = false;
    }
    if (!state.broken) this.drain(state);
  }

  private fail(batch: ProducerBatch, err: TideError): void {
    // The request buffer is not recycled: a failed stream may still be framing it for a dead call.
    batch.fail(err);
    this.accumulator.release(batch);
  }
}
