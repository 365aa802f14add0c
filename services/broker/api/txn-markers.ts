/**
 * WriteTxnMarkers (protos/tide/v1/internal/txn_markers.proto): the transaction coordinator ends a
 * transaction on the partitions this broker leads. Each partition gets one COMMIT or ABORT control
 * batch (Partition.writeTxnMarker: replicated below the HW before the answer, idempotent, fenced by
 * producer and coordinator epoch) and its own result; one partition failing (NOT_LEADER after a
 * leader change, PRODUCER_FENCED...) does not fail the others. A malformed request fails whole with
 * INVALID_REQUEST before anything is written. Only Tide's services may call it: the call must carry
 * the cluster's internal token (header tide-internal-token), else AUTHORIZATION_FAILED.
 * WriteTxnMarkersStream carries the same calls on one long-lived stream per coordinator
 * (common/grpc/stream-calls.ts); a stopping broker ends those streams with closeStreams().
 */
import type * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
import { echo } from '../../common/echo';
import { INTERNAL_TOKEN_HEADER, hasInternalToken } from '../../common/grpc/routing-headers';
import { toWireError } from '../../common/grpc/status';
import { edgeOf, unary, type RpcEdge } from '../../common/grpc/unary';
import { StreamCallsServer } from '../../common/grpc/stream-calls';
import type { TxnMarkersHandlers } from '../../common/grpc/generated/tide/v1/internal/TxnMarkers';
import type { WriteTxnMarkersRequest } from '../../common/grpc/generated/tide/v1/internal/WriteTxnMarkersRequest';
import type { WriteTxnMarkersResponse__Input } from '../../common/grpc/generated/tide/v1/internal/WriteTxnMarkersResponse';
import type { TxnMarkerPartitionResult__Input } from '../../common/grpc/generated/tide/v1/internal/TxnMarkerPartitionResult';
import type { ControlType } from '../../common/records';
import type { PartitionRegistry } from '../partition/partition-registry';
import { requirePartition, requireTopic } from './validate';

/** timeout_ms 0 (unset): how long markers may take to replicate. */
export const DEFAULT_TXN_MARKER_TIMEOUT_MS = 30_000;
const MAX_TXN_MARKER_TIMEOUT_MS = 300_000;
const MAX_PRODUCER_EPOCH = 0x7fff;

export interface TxnMarkersDeps {
  partitions: PartitionRegistry;
  /** The cluster's internal token (services/common/cluster/internal-token.ts). */
  internalToken: string;
}

export interface TxnMarkersService {
  handlers: TxnMarkersHandlers;
  /** Ends the open WriteTxnMarkersStream streams (before the server stops). */
  closeStreams(): void;
}

export function txnMarkersService(deps: TxnMarkersDeps, edge: RpcEdge): TxnMarkersService {
  const { logger, observeRpc } = edgeOf(edge);
  const streams = new StreamCallsServer<WriteTxnMarkersRequest, WriteTxnMarkersResponse__Input>({
    handle: (request, metadata) => writeTxnMarkers(deps, request, metadata),
    method: 'WriteTxnMarkersStream',
    logger,
    observeRpc,
  });
  return {
    handlers: {
      WriteTxnMarkers: unary(edge, 'WriteTxnMarkers', (request: WriteTxnMarkersRequest, metadata) =>
        writeTxnMarkers(deps, request, metadata),
      ),
      WriteTxnMarkersStream: streams.handler,
    },
    closeStreams: () => streams.closeStreams(),
  };
}

interface CheckedMarker {
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
  type: ControlType;
  partitions: { topic: string; partition: number }[];
}

export async function writeTxnMarkers(
  deps: TxnMarkersDeps,
  request: WriteTxnMarkersRequest,
  metadata: grpc.Metadata | undefined,
): Promise<WriteTxnMarkersResponse__Input> {
  requireInternalToken(deps.internalToken, metadata);
  const { markers, timeoutMs } = checkRequest(request);
  const results = markers.flatMap((marker) =>
    marker.partitions.map(async ({ topic, partition }): Promise<TxnMarkerPartitionResult__Input> => {
      const result = { producer_id: marker.producerId, topic, partition };
      try {
        await deps.partitions.leaderFor(topic, partition).writeTxnMarker({
          type: marker.type,
          producerId: marker.producerId,
          producerEpoch: marker.producerEpoch,
          coordinatorEpoch: marker.coordinatorEpoch,
          timeoutMs,
        });
        return result;
      } catch (err) {
        return { ...result, error: toWireError(err) };
      }
    }),
  );
  return { results: await Promise.all(results) };
}

function requireInternalToken(token: string, metadata: grpc.Metadata | undefined): void {
  if (hasInternalToken(metadata, token)) return;
  throw new TideError(
    'AUTHORIZATION_FAILED',
    `WriteTxnMarkers is internal: only Tide's transaction coordinator may call it (header ${INTERNAL_TOKEN_HEADER})`,
  );
}

/** Checks the whole request before anything is written. Throws INVALID_REQUEST. */
function checkRequest(request: WriteTxnMarkersRequest): { markers: CheckedMarker[]; timeoutMs: number } {
  const bad = (why: string): never => {
    throw new TideError('INVALID_REQUEST', why);
  };
  const timeout = request.timeout_ms ?? 0;
  if (!Number.isInteger(timeout) || timeout < 0 || timeout > MAX_TXN_MARKER_TIMEOUT_MS)
    bad(
      `timeout_ms must be 0..${MAX_TXN_MARKER_TIMEOUT_MS} (0 = ${DEFAULT_TXN_MARKER_TIMEOUT_MS}), got ${timeout}`,
    );
  if (request.markers.length === 0) bad('markers is empty: name at least one transaction to end');
  const markers = request.markers.map((m, i): CheckedMarker => {
    const producerId = Number(m.producer_id);
    if (!Number.isSafeInteger(producerId) || producerId < 0)
      bad(`marker ${i}: producer_id must be >= 0, got ${echo(m.producer_id)}`);
    if (!Number.isInteger(m.producer_epoch) || m.producer_epoch < 0 || m.producer_epoch > MAX_PRODUCER_EPOCH)
      bad(`marker ${i}: producer_epoch must be 0..${MAX_PRODUCER_EPOCH}, got ${m.producer_epoch}`);
    if (!Number.isInteger(m.coordinator_epoch) || m.coordinator_epoch < 0)
      bad(`marker ${i}: coordinator_epoch must be >= 0, got ${m.coordinator_epoch}`);
    const type: ControlType | undefined =
      m.result === 'TXN_RESULT_COMMIT' ? 'COMMIT' : m.result === 'TXN_RESULT_ABORT' ? 'ABORT' : undefined;
    if (type === undefined)
      return bad(`marker ${i}: result must be TXN_RESULT_COMMIT or TXN_RESULT_ABORT, got ${echo(m.result)}`);
    if (m.partitions.length === 0) bad(`marker ${i}: partitions is empty`);
    const seen = new Set<string>();
    const partitions = m.partitions.map((p) => {
      const topic = requireTopic(p.topic);
      const partition = requirePartition(p.partition);
      const key = `${partition}:${topic}`;
      if (seen.has(key)) bad(`marker ${i}: partition ${partition} of ${echo(topic)} is named twice`);
      seen.add(key);
      return { topic, partition };
    });
    return {
      producerId,
      producerEpoch: m.producer_epoch,
      coordinatorEpoch: m.coordinator_epoch,
      type,
      partitions,
    };
  });
  return { markers, timeoutMs: timeout === 0 ? DEFAULT_TXN_MARKER_TIMEOUT_MS : timeout };
}
