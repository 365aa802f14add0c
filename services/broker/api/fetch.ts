/**
 * Fetch handlers: the unary long-poll Fetch and the FetchStream session that keeps delivering.
 * Batches are served as stored (the fast path); the portable format decodes them here.
 */
import type * as grpc from '@grpc/grpc-js';
import type { FetchRequest } from '../../common/grpc/generated/tide/v1/FetchRequest';
import type { FetchResponse__Input } from '../../common/grpc/generated/tide/v1/FetchResponse';
import type { FetchStreamRequest } from '../../common/grpc/generated/tide/v1/FetchStreamRequest';
import type { RecordFormat } from '../../common/grpc/generated/tide/v1/RecordFormat';
import {
  IsolationLevel as IsolationLevels,
  type IsolationLevel as WireIsolationLevel,
} from '../../common/grpc/generated/tide/v1/IsolationLevel';
import { TideError } from '../../common/errors';
import { echo } from '../../common/echo';
import { toWireError } from '../../common/grpc/status';
import { decodeRecords } from '../../common/records';
import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';
import type { IsolationLevel, Partition, PartitionReadResult } from '../partition/partition';
import type { PartitionRegistry } from '../partition/partition-registry';
import { toWireRecord } from './records';
import { isLedElsewhere, type LeaderForwarder } from './forward';
import { wantsProxy } from '../../common/grpc/routing-headers';
import type { TrafficMetrics } from '../metrics';
import {
  byteLimit,
  requireEnum,
  requireOffset,
  requirePartition,
  requireStreamOffset,
  requireTopic,
  waitLimit,
} from './validate';
import { RecordFormat as RecordFormats } from '../../common/grpc/generated/tide/v1/RecordFormat';
import { toGrpcStatus } from '../../common/grpc/status';
import { ByteBudget, ConnectionBudgets } from './byte-budget';
import { MultiPartitionSender, type FetchAnswerSink } from './fetch-multi-sender';
import type { FetchStreamMultiResponse__Input } from '../../common/grpc/generated/tide/v1/FetchStreamMultiResponse';

export const DEFAULT_FETCH_MAX_BYTES = 1024 * 1024;
export const FETCH_MAX_BYTES_LIMIT = 32 * 1024 * 1024;
export const FETCH_MAX_WAIT_MS_LIMIT = 60_000;
/** Positions one FetchStream may name (Kafka bounds fetch sessions too). */
export const DEFAULT_FETCH_STREAM_MAX_POSITIONS = 1_000;
/** Bytes one FetchStream may hold in reads and unsent responses. */
export const DEFAULT_FETCH_STREAM_BUFFER_BYTES = 64 * 1024 * 1024;
/** Bytes all FetchStreams of one client connection may hold together. */
export const DEFAULT_FETCH_CONNECTION_BUFFER_BYTES = 128 * 1024 * 1024;

/** The bounds of FetchStream sessions (broker config keys fetchStream*). */
export interface FetchStreamLimits {
  maxPositions: number;
  streamBufferBytes: number;
  connectionBufferBytes: number;
}

export const DEFAULT_FETCH_STREAM_LIMITS: FetchStreamLimits = {
  maxPositions: DEFAULT_FETCH_STREAM_MAX_POSITIONS,
  streamBufferBytes: DEFAULT_FETCH_STREAM_BUFFER_BYTES,
  connectionBufferBytes: DEFAULT_FETCH_CONNECTION_BUFFER_BYTES,
};

/** How long a FetchStream partition loop parks before re-checking (it is woken on new data). */
const STREAM_IDLE_WAIT_MS = 30_000;

export interface FetchDeps {
  partitions: PartitionRegistry;
  /** Proxy routing: forwards reads of partitions led elsewhere (see forward.ts). */
  forwarder?: LeaderForwarder;
  metrics?: TrafficMetrics;
  /** FetchStream bounds; DEFAULT_FETCH_STREAM_LIMITS when absent. */
  streamLimits?: FetchStreamLimits;
  /** Per-connection byte budgets of FetchStream, shared by every stream of this broker. */
  connectionBudgets?: ConnectionBudgets;
  clock: Clock;
  logger: Logger;
}

/** The request's isolation level (unset = READ_UNCOMMITTED); INVALID_REQUEST for an unknown value. */
export function requireIsolation(value: WireIsolationLevel | number | undefined): IsolationLevel {
  const level = requireEnum('isolation', value ?? 'ISOLATION_LEVEL_READ_UNCOMMITTED', IsolationLevels);
  return level === 'ISOLATION_LEVEL_READ_COMMITTED' ? 'read_committed' : 'read_uncommitted';
}

/** What a reader at `isolation` may see up to: the LSO for read_committed, else the HW. */
function visibleEnd(partition: Partition, isolation: IsolationLevel): number {
  return isolation === 'read_committed' ? partition.lastStableOffset : partition.highWatermark;
}

export async function fetch(deps: FetchDeps, request: FetchRequest): Promise<FetchResponse__Input> {
  const topic = requireTopic(request.topic);
  const partitionId = requirePartition(request.partition);
  const offset = requireOffset(request.offset);
  const maxBytes = byteLimit('max_bytes', request.max_bytes, DEFAULT_FETCH_MAX_BYTES, FETCH_MAX_BYTES_LIMIT);
  const maxWaitMs = waitLimit('max_wait_ms', request.max_wait_ms, FETCH_MAX_WAIT_MS_LIMIT);
  const minBytes = Math.max(1, request.min_bytes);
  const format = requireEnum('format', request.format, RecordFormats);
  const isolation = requireIsolation(request.isolation);
  const partition = deps.partitions.leaderFor(topic, partitionId);

  const deadline = deps.clock.nowMs() + maxWaitMs;
  let result = await partition.read(offset, maxBytes, isolation);
  while (result.batches.length < minBytes && deps.clock.nowMs() < deadline) {
    const waitFrom = result.batches.length === 0 ? offset : result.nextOffset;
    await partition.waitForData(waitFrom, deadline - deps.clock.nowMs(), undefined, isolation);
    result = await partition.read(offset, maxBytes, isolation);
    if (visibleEnd(partition, isolation) <= waitFrom) break;
  }
  deps.metrics?.fetched(topic, result.batches.length);
  return toFetchResponse(partition, offset, result, format);
}

function toFetchResponse(
  partition: Partition,
  offset: number,
  result: PartitionReadResult,
  format: RecordFormat,
): FetchResponse__Input {
  const response: FetchResponse__Input = {
    topic: partition.topic,
    partition: partition.partition,
    high_watermark: result.highWatermark,
    last_stable_offset: result.lastStableOffset,
    log_start_offset: result.logStartOffset,
    next_offset: result.nextOffset,
  };
  if (format === 'RECORD_FORMAT_BATCHES') {
    response.record_batches = result.batches;
    if (result.abortedTransactions && result.abortedTransactions.length > 0)
      response.aborted_transactions = result.abortedTransactions.map((t) => ({
        producer_id: t.producerId,
        first_offset: t.firstOffset,
      }));
  } else {
    // Portable clients get committed records only: aborted ones (read_committed) and control
    // records are dropped here.
    response.records = decodeRecords(result.batches, offset, result.abortedTransactions).map(toWireRecord);
  }
  return response;
}

/** The checked fields of a FetchStreamRequest. */
interface StreamRequest {
  positions: { topic: string; partition: number; offset: number }[];
  maxBytes: number;
  format: RecordFormat;
  isolation: IsolationLevel;
}

/**
 * Checks a FetchStreamRequest whole before anything starts: every position well formed, none
 * named twice, at most `maxPositions`. Throws INVALID_REQUEST.
 */
export function checkStreamRequest(request: FetchStreamRequest, maxPositions: number): StreamRequest {
  const maxBytes = byteLimit('max_bytes', request.max_bytes, DEFAULT_FETCH_MAX_BYTES, FETCH_MAX_BYTES_LIMIT);
  const format = requireEnum('format', request.format, RecordFormats);
  const isolation = requireIsolation(request.isolation);
  if (request.positions.length === 0)
    throw new TideError('INVALID_REQUEST', 'positions must name at least one partition');
  if (request.positions.length > maxPositions)
    throw new TideError(
      'INVALID_REQUEST',
      `${request.positions.length} positions exceed the limit of ${maxPositions} per FetchStream; open more streams`,
    );
  const seen = new Set<string>();
  const positions = request.positions.map((position, i) => {
    const topic = requireTopic(position.topic);
    const partition = requirePartition(position.partition);
    const offset = requireStreamOffset(position.offset);
    const key = `${partition}:${topic}`;
    if (seen.has(key))
      throw new TideError(
        'INVALID_REQUEST',
        `position ${i} names partition ${partition} of topic ${echo(topic)} again; name each partition once`,
      );
    seen.add(key);
    return { topic, partition, offset };
  });
  return { positions, maxBytes, format, isolation };
}

/** The stream's and its connection's budgets, reserved and released together. */
class StreamBudget {
  constructor(
    private readonly stream: ByteBudget,
    private readonly connection: ByteBudget,
    private readonly signal: AbortSignal,
  ) {}

  /** Reserves up to `bytes` in both; resolves with the amount to release (0 when aborted). */
  async acquire(bytes: number): Promise<number> {
    const fromStream = await this.stream.acquire(bytes, this.signal);
    if (fromStream === 0) return 0;
    const fromConnection = await this.connection.acquire(fromStream, this.signal);
    if (fromConnection < fromStream) {
      this.stream.release(fromStream);
      this.connection.release(fromConnection);
      return 0;
    }
    return fromStream;
  }

  release(bytes: number): void {
    this.stream.release(bytes);
    this.connection.release(bytes);
  }
}

type FetchStreamCall = grpc.ServerWritableStream<FetchStreamRequest, FetchResponse__Input>;
type FetchStreamMultiCall = grpc.ServerWritableStream<FetchStreamRequest, FetchStreamMultiResponse__Input>;
/** What the partition loops need of either call: its request, peer, events and drain. */
type AnyFetchStreamCall = FetchStreamCall | FetchStreamMultiCall;

/**
 * Serves one FetchStream call: one loop per requested partition until the client cancels, each
 * answer its own message. An invalid request ends the call at once with INVALID_ARGUMENT
 * (INVALID_REQUEST).
 */
export function handleFetchStream(deps: FetchDeps, call: FetchStreamCall): void {
  serveFetchStream(deps, call, (budget, signal) => ({
    send: async (response, reserved) => {
      // Gives the reservation back once grpc-js has handed the response to HTTP/2.
      if (!call.write(response, () => budget.release(reserved))) await drained(call, signal);
    },
  }));
}

/**
 * Serves one FetchStreamMulti call: the same partition loops as FetchStream, their answers sent
 * several to a message (fetch-multi-sender.ts).
 */
export function handleFetchStreamMulti(deps: FetchDeps, call: FetchStreamMultiCall): void {
  serveFetchStream(deps, call, (budget, signal, request) => {
    return new MultiPartitionSender(
      call,
      request.maxBytes,
      (bytes) => budget.release(bytes),
      () => drained(call, signal),
      signal,
    );
  });
}

function serveFetchStream(
  deps: FetchDeps,
  call: AnyFetchStreamCall,
  sinkOf: (budget: StreamBudget, signal: AbortSignal, request: StreamRequest) => FetchAnswerSink,
): void {
  const limits = deps.streamLimits ?? DEFAULT_FETCH_STREAM_LIMITS;
  let request: StreamRequest;
  try {
    request = checkStreamRequest(call.request, limits.maxPositions);
  } catch (err) {
    call.emit('error', toGrpcStatus(err));
    return;
  }
  const abort = new AbortController();
  const connection = (deps.connectionBudgets ?? new ConnectionBudgets(limits.connectionBufferBytes)).open(
    call.getPeer(),
  );
  const stop = () => {
    abort.abort();
    connection.done();
  };
  call.on('cancelled', stop);
  call.on('close', stop);
  call.on('error', stop);
  const budget = new StreamBudget(new ByteBudget(limits.streamBufferBytes), connection.budget, abort.signal);
  const sink = sinkOf(budget, abort.signal, request);

  const loops = request.positions.map((position) =>
    streamPartition(deps, call, sink, position, request, budget, abort.signal),
  );
  void Promise.all(loops).then(() => {
    connection.done();
    if (!abort.signal.aborted) call.end();
  });
}

/** fetch(), or, for a proxy-routing client, forwarded to the leader when it is elsewhere. */
export function fetchRouted(
  deps: FetchDeps,
  request: FetchRequest,
  metadata: grpc.Metadata,
): Promise<FetchResponse__Input> {
  return fetch(deps, request).catch((err: unknown) => {
    if (!deps.forwarder || !wantsProxy(metadata) || !isLedElsewhere(err)) throw err;
    return deps.forwarder.fetch(request, request.max_wait_ms);
  });
}

/** How long a proxied FetchStream partition long-polls the leader per round. */
const PROXY_FETCH_WAIT_MS = 1_000;

/** A read whose bytes are reserved in the budget until its response has been sent. */
interface BudgetedRead {
  result: PartitionReadResult;
  reserved: number;
}

async function streamPartition(
  deps: FetchDeps,
  call: AnyFetchStreamCall,
  sink: FetchAnswerSink,
  position: { topic: string; partition: number; offset: number },
  request: StreamRequest,
  budget: StreamBudget,
  signal: AbortSignal,
): Promise<void> {
  const { topic, partition: partitionId } = position;
  const { maxBytes, format, isolation } = request;
  let offset = position.offset;
  const send = (response: FetchResponse__Input, reserved: number) => sink.send(response, reserved);
  try {
    let partition: Partition;
    try {
      partition = deps.partitions.leaderFor(topic, partitionId);
    } catch (err) {
      if (!deps.forwarder || !wantsProxy(call.metadata) || !isLedElsewhere(err)) throw err;
      // Led elsewhere and the client can only reach us: relay long polls of the leader.
      while (!signal.aborted) {
        const reserved = await budget.acquire(maxBytes);
        if (signal.aborted) return budget.release(reserved);
        let response: FetchResponse__Input;
        try {
          response = await deps.forwarder.fetch(
            {
              topic,
              partition: partitionId,
              offset,
              max_bytes: maxBytes,
              max_wait_ms: PROXY_FETCH_WAIT_MS,
              format,
              isolation:
                isolation === 'read_committed'
                  ? 'ISOLATION_LEVEL_READ_COMMITTED'
                  : 'ISOLATION_LEVEL_READ_UNCOMMITTED',
            },
            PROXY_FETCH_WAIT_MS,
          );
        } catch (fetchErr) {
          budget.release(reserved);
          throw fetchErr;
        }
        if (signal.aborted || response.next_offset === offset) {
          budget.release(reserved);
          continue;
        }
        offset = Number(response.next_offset);
        await send(response, reserved);
      }
      return;
    }
    let next = readAhead(partition, offset, maxBytes, isolation, budget, signal);
    while (!signal.aborted) {
      const { result, reserved } = await next;
      if (signal.aborted) return budget.release(reserved);
      if (result.batches.length === 0) {
        budget.release(reserved);
        await partition.waitForData(offset, STREAM_IDLE_WAIT_MS, signal, isolation);
        next = readAhead(partition, offset, maxBytes, isolation, budget, signal);
        continue;
      }
      deps.metrics?.fetched(topic, result.batches.length);
      const response = toFetchResponse(partition, offset, result, format);
      offset = result.nextOffset;
      // The next read runs on the fs threadpool while this response is serialised and sent.
      next = readAhead(partition, offset, maxBytes, isolation, budget, signal);
      await send(response, reserved);
    }
  } catch (err) {
    if (signal.aborted) return;
    if (!(err instanceof TideError))
      deps.logger.error({ err, topic, partition: partitionId }, 'fetch stream failed unexpectedly');
    await sink.send({ topic, partition: partitionId, next_offset: offset, error: toWireError(err) }, 0);
  }
}

const NOTHING_READ: PartitionReadResult = {
  batches: Buffer.alloc(0),
  highWatermark: 0,
  lastStableOffset: 0,
  logStartOffset: 0,
  nextOffset: 0,
};

/**
 * Reserves the read's bytes, then starts it; a failure is seen when the promise is awaited, not as
 * an unhandled rejection. Aborted before the reservation: an empty result with nothing reserved.
 */
function readAhead(
  partition: Partition,
  offset: number,
  maxBytes: number,
  isolation: IsolationLevel,
  budget: StreamBudget,
  signal: AbortSignal,
): Promise<BudgetedRead> {
  const read = (async () => {
    const reserved = await budget.acquire(maxBytes);
    if (signal.aborted) {
      budget.release(reserved);
      return { result: NOTHING_READ, reserved: 0 };
    }
    try {
      return { result: await partition.read(offset, maxBytes, isolation), reserved };
    } catch (err) {
      budget.release(reserved);
      throw err;
    }
  })();
  read.catch(() => undefined); // awaited by the loop, unless the stream ends first
  return read;
}

function drained(call: AnyFetchStreamCall, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      call.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    call.on('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
