/**
 * Produce handlers: unary Produce and the pipelined ProduceStream. Offsets are assigned in the
 * order requests arrive, because append() is called synchronously from the data callback.
 */
import type * as grpc from '@grpc/grpc-js';
import type { ProduceRequest } from '../../common/grpc/generated/tide/v1/ProduceRequest';
import type { PortableProducer } from '../../common/grpc/generated/tide/v1/PortableProducer';
import type { ProduceResponse__Input } from '../../common/grpc/generated/tide/v1/ProduceResponse';
import { TideError } from '../../common/errors';
import { toWireError } from '../../common/grpc/status';
import { encodeBatch } from '../../common/records/codec';
import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';
import type { PartitionRegistry } from '../partition/partition-registry';
import { fromWireRecord } from './records';
import { requireEnum, requirePartition, requireTopic } from './validate';
import { Acks } from '../../common/grpc/generated/tide/v1/Acks';
import { echo } from '../../common/echo';
import { isLedElsewhere, type LeaderForwarder } from './forward';
import { INTERNAL_TOKEN_HEADER, hasInternalToken, wantsProxy } from '../../common/grpc/routing-headers';
import type { TrafficMetrics } from '../metrics';

/** Kafka's producer epoch is an int16. */
const MAX_PRODUCER_EPOCH = 32_767;

/** In-flight requests per ProduceStream before the broker stops reading from it. */
export const PRODUCE_STREAM_MAX_IN_FLIGHT = 64;

/** Which topics are internal, and the token that lets Tide's own services write them. */
export interface InternalTopicGuard {
  isInternal(topic: string): boolean;
  /** The cluster's internal token (services/common/cluster/internal-token.ts). */
  token: string;
}

export interface ProduceDeps {
  partitions: PartitionRegistry;
  /** Refuses client writes to internal topics; absent (unit tests): every topic is writable. */
  internalTopics?: InternalTopicGuard;
  /** Proxy routing: forwards requests for partitions led elsewhere (see forward.ts). */
  forwarder?: LeaderForwarder;
  metrics?: TrafficMetrics;
  clock: Clock;
  logger: Logger;
}

/** Starts the append synchronously (fixing the order), and resolves with the response. */
export function produce(
  deps: ProduceDeps,
  request: ProduceRequest,
  metadata?: grpc.Metadata,
): Promise<ProduceResponse__Input> {
  try {
    const topic = requireTopic(request.topic);
    const internal = refuseClientWrite(deps.internalTopics, topic, metadata);
    const partitionId = requirePartition(request.partition);
    const wireAcks = requireEnum('acks', request.acks, Acks);
    if (!Number.isInteger(request.timeout_ms) || request.timeout_ms < 0)
      throw new TideError('INVALID_REQUEST', `timeout_ms must be >= 0, got ${echo(request.timeout_ms)}`);
    const batches = batchesOf(request, deps.clock);
    const partition = deps.partitions.leaderFor(topic, partitionId);
    const acks = wireAcks === 'ACKS_NONE' ? 'none' : wireAcks === 'ACKS_LEADER' ? 'leader' : 'all';
    const transactionalId = request.transactional_id || undefined;
    return partition
      .append(batches, {
        acks,
        timeoutMs: request.timeout_ms,
        transactionalId,
        // Only Tide's group coordinator writes internal topics: its transactional offset commits
        // carry the producer's id and epoch but no sequence (docs/transactions.md).
        origin: internal ? 'group-coordinator' : 'client',
      })
      .then((result) => {
        if (!result.duplicate)
          deps.metrics?.produced(topic, result.lastOffset - result.baseOffset + 1, batches.length);
        return {
          correlation_id: request.correlation_id,
          topic,
          partition: partitionId,
          base_offset: result.baseOffset,
          last_offset: result.lastOffset,
          log_append_time_ms: result.logAppendTimeMs,
          log_start_offset: result.logStartOffset,
        };
      });
  } catch (err) {
    return Promise.reject(err);
  }
}

/** The internal token a call carries, if any. */
function tokenOf(metadata: grpc.Metadata | undefined): string | undefined {
  const value = metadata?.get(INTERNAL_TOKEN_HEADER)[0];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Throws INTERNAL_TOPIC for a write to an internal topic that does not carry the internal token;
 * true for an internal topic's write that does (Tide's own services).
 */
function refuseClientWrite(
  guard: InternalTopicGuard | undefined,
  topic: string,
  metadata: grpc.Metadata | undefined,
): boolean {
  if (!guard?.isInternal(topic)) return false;
  if (hasInternalToken(metadata, guard.token)) return true;
  throw new TideError(
    'INTERNAL_TOPIC',
    `${topic} is an internal topic: only Tide's group coordinator writes it`,
    { context: { topic } },
  );
}

function batchesOf(request: ProduceRequest, clock: Clock): Buffer {
  const hasBatches = request.record_batches.length > 0;
  const hasRecords = request.records.length > 0;
  if (hasBatches === hasRecords) {
    throw new TideError(
      'INVALID_REQUEST',
      'set exactly one of record_batches (fast path) or records (portable path)',
    );
  }
  if (hasBatches) {
    if (request.producer)
      throw new TideError(
        'INVALID_REQUEST',
        'producer is for the portable path (records) only: with record_batches the batch headers carry the producer id, epoch and sequence',
      );
    return request.record_batches;
  }
  return encodeBatch(request.records.map(fromWireRecord), {
    nowMs: clock.nowMs(),
    ...(request.producer ? portableProducer(request.producer) : {}),
  });
}

/** The checked identity a portable-path batch is built with. */
function portableProducer(producer: PortableProducer): {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  transactional: boolean;
} {
  const { producer_id: id, producer_epoch: epoch, base_sequence: sequence } = producer;
  if (!Number.isSafeInteger(id) || id < 0)
    throw new TideError(
      'INVALID_REQUEST',
      `producer.producer_id must be the id InitProducerId or InitTransactions answered (>= 0), got ${echo(id)}`,
    );
  if (!Number.isInteger(epoch) || epoch < 0 || epoch > MAX_PRODUCER_EPOCH)
    throw new TideError(
      'INVALID_REQUEST',
      `producer.producer_epoch must be in 0..${MAX_PRODUCER_EPOCH}, got ${echo(epoch)}`,
    );
  if (!Number.isInteger(sequence) || sequence < 0)
    throw new TideError(
      'INVALID_REQUEST',
      `producer.base_sequence must be >= 0 (0 for the first request of an epoch), got ${echo(sequence)}`,
    );
  return {
    producerId: id,
    producerEpoch: epoch,
    baseSequence: sequence,
    transactional: producer.transactional,
  };
}

/** produce(), or, for a proxy-routing client, forwarded to the leader when it is elsewhere. */
export function produceRouted(
  deps: ProduceDeps,
  request: ProduceRequest,
  metadata: grpc.Metadata,
): Promise<ProduceResponse__Input> {
  return produce(deps, request, metadata).catch((err: unknown) => {
    if (!deps.forwarder || !wantsProxy(metadata) || !isLedElsewhere(err)) throw err;
    return deps.forwarder.produce(request, request.timeout_ms || 30_000, tokenOf(metadata));
  });
}

/** Handles one ProduceStream call until the client half-closes or cancels it. */
export function handleProduceStream(
  deps: ProduceDeps,
  call: grpc.ServerDuplexStream<ProduceRequest, ProduceResponse__Input>,
): void {
  let inFlight = 0;
  let clientDone = false;
  const maybeEnd = () => {
    if (clientDone && inFlight === 0) call.end();
  };
  const settle = (response: ProduceResponse__Input | undefined) => {
    inFlight--;
    if (response && !call.cancelled && !call.destroyed) call.write(response);
    if (inFlight < PRODUCE_STREAM_MAX_IN_FLIGHT && call.isPaused()) call.resume();
    maybeEnd();
  };
  call.on('data', (request: ProduceRequest) => {
    inFlight++;
    if (inFlight >= PRODUCE_STREAM_MAX_IN_FLIGHT) call.pause();
    const silent = request.acks === 'ACKS_NONE';
    produceRouted(deps, request, call.metadata).then(
      (response) => settle(silent ? undefined : response),
      (err: unknown) => {
        if (!(err instanceof TideError))
          deps.logger.error({ err, topic: request.topic }, 'produce failed unexpectedly');
        settle(
          silent
            ? undefined
            : {
                correlation_id: request.correlation_id,
                topic: request.topic,
                partition: request.partition,
                error: toWireError(err),
              },
        );
      },
    );
  });
  call.on('end', () => {
    clientDone = true;
    maybeEnd();
  });
  call.on('error', (err) => deps.logger.debug({ err }, 'produce stream closed with an error'));
}
