/**
 * Fetch handlers: the unary long-poll Fetch and the FetchStream session that keeps delivering.
 * Batches are served as stored (the fast path); the portable format decodes them here.
 */
import type * as grpc from '@grpc/grpc-js';
import type { FetchRequest } from '../../common/grpc/generated/tide/v1/FetchRequest';
import type { FetchResponse__Input } from '../../common/grpc/generated/tide/v1/FetchResponse';
import type { FetchStreamRequest } from '../../common/grpc/generated/tide/v1/FetchStreamRequest';
import type { RecordFormat } from '../../common/grpc/generated/tide/v1/RecordFormat';
import { TideError } from '../../common/errors';
import { toWireError } from '../../common/grpc/status';
import { decodeRecords } from '../../common/records';
import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';
import type { Partition, PartitionReadResult } from '../partition/partition';
import type { PartitionRegistry } from '../partition/partition-registry';
import { toWireRecord } from './records';
import { isLedElsewhere, type LeaderForwarder } from './forward';
import { wantsProxy } from '../../common/grpc/routing-headers';
import type { TrafficMetrics } from '../metrics';
import { byteLimit, requireOffset, requirePartition, requireTopic, waitLimit } from './validate';

export const DEFAULT_FETCH_MAX_BYTES = 1024 * 1024;
export const FETCH_MAX_BYTES_LIMIT = 32 * 1024 * 1024;
export const FETCH_MAX_WAIT_MS_LIMIT = 60_000;
/** How long a FetchStream partition loop parks before re-checking (it is woken on new data). */
const STREAM_IDLE_WAIT_MS = 30_000;

export interface FetchDeps {
  partitions: PartitionRegistry;
  /** Proxy routing: forwards reads of partitions led elsewhere (see forward.ts). */
  forwarder?: LeaderForwarder;
  metrics?: TrafficMetrics;
  clock: Clock;
  logger: Logger;
}

export async function fetch(deps: FetchDeps, request: FetchRequest): Promise<FetchResponse__Input> {
  const topic = requireTopic(request.topic);
  const partitionId = requirePartition(request.partition);
  const offset = requireOffset(request.offset);
  const maxBytes = byteLimit('max_bytes', request.max_bytes, DEFAULT_FETCH_MAX_BYTES, FETCH_MAX_BYTES_LIMIT);
  const maxWaitMs = waitLimit('max_wait_ms', request.max_wait_ms, FETCH_MAX_WAIT_MS_LIMIT);
  const minBytes = Math.max(1, request.min_bytes);
  const partition = deps.partitions.leaderFor(topic, partitionId);

  const deadline = deps.clock.nowMs() + maxWaitMs;
  let result = await partition.read(offset, maxBytes);
  while (result.batches.length < minBytes && deps.clock.nowMs() < deadline) {
    const waitFrom = result.batches.length === 0 ? offset : result.nextOffset;
    await partition.waitForData(waitFrom, deadline - deps.clock.nowMs());
    result = await partition.read(offset, maxBytes);
    if (partition.highWatermark <= waitFrom) break;
  }
  deps.metrics?.fetched(topic, result.batches.length);
  return toFetchResponse(partition, offset, result, request.format);
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
    log_start_offset: result.logStartOffset,
    next_offset: result.nextOffset,
  };
  if (format === 'RECORD_FORMAT_BATCHES') {
    response.record_batches = result.batches;
  } else {
    response.records = decodeRecords(result.batches, offset).map(toWireRecord);
  }
  return response;
}

/** Serves one FetchStream call: one loop per requested partition until the client cancels. */
export function handleFetchStream(
  deps: FetchDeps,
  call: grpc.ServerWritableStream<FetchStreamRequest, FetchResponse__Input>,
): void {
  const request = call.request;
  const abort = new AbortController();
  call.on('cancelled', () => abort.abort());
  call.on('close', () => abort.abort());
  call.on('error', () => abort.abort());

  let maxBytes: number;
  try {
    maxBytes = byteLimit('max_bytes', request.max_bytes, DEFAULT_FETCH_MAX_BYTES, FETCH_MAX_BYTES_LIMIT);
    if (request.positions.length === 0)
      throw new TideError('INVALID_REQUEST', 'positions must name at least one partition');
    for (const position of request.positions) {
      requireTopic(position.topic);
      requirePartition(position.partition);
      requireOffset(position.offset);
    }
  } catch (err) {
    call.destroy(err as Error);
    return;
  }

  const loops = request.positions.map((position) =>
    streamPartition(
      deps,
      call,
      position.topic,
      position.partition,
      position.offset,
      maxBytes,
      request.format,
      abort.signal,
    ),
  );
  void Promise.all(loops).then(() => {
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

async function streamPartition(
  deps: FetchDeps,
  call: grpc.ServerWritableStream<FetchStreamRequest, FetchResponse__Input>,
  topic: string,
  partitionId: number,
  startOffset: number,
  maxBytes: number,
  format: RecordFormat,
  signal: AbortSignal,
): Promise<void> {
  let offset = startOffset;
  try {
    let partition: Partition;
    try {
      partition = deps.partitions.leaderFor(topic, partitionId);
    } catch (err) {
      if (!deps.forwarder || !wantsProxy(call.metadata) || !isLedElsewhere(err)) throw err;
      // Led elsewhere and the client can only reach us: relay long polls of the leader.
      while (!signal.aborted) {
        const response = await deps.forwarder.fetch(
          {
            topic,
            partition: partitionId,
            offset,
            max_bytes: maxBytes,
            max_wait_ms: PROXY_FETCH_WAIT_MS,
            format,
          },
          PROXY_FETCH_WAIT_MS,
        );
        if (signal.aborted) return;
        if (response.next_offset === offset) continue;
        offset = response.next_offset;
        if (!call.write(response)) await drained(call, signal);
      }
      return;
    }
    let next = readAhead(partition, offset, maxBytes);
    while (!signal.aborted) {
      const result = await next;
      if (signal.aborted) return;
      if (result.batches.length === 0) {
        await partition.waitForData(offset, STREAM_IDLE_WAIT_MS, signal);
        next = readAhead(partition, offset, maxBytes);
        continue;
      }
      deps.metrics?.fetched(topic, result.batches.length);
      const response = toFetchResponse(partition, offset, result, format);
      offset = result.nextOffset;
      // The next read runs on the fs threadpool while this response is serialised and sent.
      next = readAhead(partition, offset, maxBytes);
      if (!call.write(response)) await drained(call, signal);
    }
  } catch (err) {
    if (signal.aborted) return;
    if (!(err instanceof TideError))
      deps.logger.error({ err, topic, partition: partitionId }, 'fetch stream failed unexpectedly');
    call.write({ topic, partition: partitionId, next_offset: offset, error: toWireError(err) });
  }
}

/** Starts a read whose failure is seen when it is awaited, not as an unhandled rejection. */
function readAhead(partition: Partition, offset: number, maxBytes: number): Promise<PartitionReadResult> {
  const read = partition.read(offset, maxBytes);
  read.catch(() => undefined); // awaited by the loop, unless the stream ends first
  return read;
}

function drained(
  call: grpc.ServerWritableStream<FetchStreamRequest, FetchResponse__Input>,
  signal: AbortSignal,
): Promise<void> {
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
