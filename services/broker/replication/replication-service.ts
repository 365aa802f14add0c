/**
 * The `tide.v1.internal.Replication` gRPC service a leader broker serves: one Replicate bidi
 * stream per follower broker, its requests answered one at a time in order by serveReplicaFetch
 * (leader-fetch.ts), which long-polls. A malformed request ends the stream with INVALID_REQUEST;
 * partition-level problems travel inside the answers and the stream goes on.
 *
 *   const replication = new ReplicationService(deps);
 *   server.addService(internalProto().replication.Replication.service, replication.handlers());
 *   ...
 *   replication.closeStreams(); // on shutdown, before stopping the server
 *
 * It also watches each follower broker's streams (by the replica_id of their first request): when
 * the last one breaks (the follower died, or the network between them broke) and none reopens
 * within streamLossMs, onFollowerLost tells the partitions, which drop it from their ISRs at once
 * (never below min.insync.replicas) rather than stalling acks=all until the lag time or the
 * follower's lease runs out.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Timer } from '../../common/clock';
import { TideError } from '../../common/errors';
import { DEFAULT_REPLICA_STREAM_LOSS_ISR_SHRINK_MS } from '../partition/replication-settings';
import { toGrpcStatus } from '../../common/grpc/status';
import type { ReplicationHandlers } from '../../common/grpc/generated/tide/v1/internal/Replication';
import type { ReplicaFetchRequest } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchRequest';
import type { ReplicaFetchResponse__Input } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchResponse';
import { ReplicaFetchSession, serveReplicaFetch, type LeaderFetchDeps } from './leader-fetch';

/** The service's handlers, for server.addService. */
export function replicationHandlers(deps: LeaderFetchDeps): ReplicationHandlers {
  return new ReplicationService(deps).handlers();
}

type ReplicateCall = grpc.ServerDuplexStream<ReplicaFetchRequest, ReplicaFetchResponse__Input>;

/** The service plus its open streams, so a stopping broker can end them (see closeStreams). */
/** What the service tells the partitions when a follower's streams are gone for good. */
export interface ReplicationServiceDeps extends LeaderFetchDeps {
  /**
   * Every stream of follower `replicaId` broke and none came back within streamLossMs: the
   * partitions led here drop it from their ISRs (Partition.followerStreamLost). Absent: ignored.
   */
  onFollowerLost?: (replicaId: number) => void;
  /** Default DEFAULT_REPLICA_STREAM_LOSS_ISR_SHRINK_MS. */
  streamLossMs?: number;
}

export class ReplicationService {
  private readonly open = new Set<() => void>();
  /** Open streams per follower broker id (known from a stream's first request). */
  private readonly streamsOf = new Map<number, number>();
  private readonly lossTimers = new Map<number, Timer>();
  private closed = false;

  constructor(private readonly deps: ReplicationServiceDeps) {}

  handlers(): ReplicationHandlers {
    return { Replicate: (call) => this.handle(call) };
  }

  /**
   * Ends every open Replicate stream with UNAVAILABLE and refuses new ones: followers reconnect
   * (to whichever broker leads by then) and the gRPC server can stop without waiting for streams
   * that never end by themselves.
   */
  closeStreams(): void {
    this.closed = true;
    for (const timer of this.lossTimers.values()) timer.cancel();
    this.lossTimers.clear();
    for (const end of [...this.open]) end();
  }

  private handle(call: ReplicateCall): void {
    if (this.closed) {
      call.emit('error', toGrpcStatus(new TideError('BROKER_NOT_AVAILABLE', 'broker is shutting down')));
      return;
    }
    const end = () => {
      this.open.delete(end);
      if (!call.destroyed)
        call.emit('error', toGrpcStatus(new TideError('BROKER_NOT_AVAILABLE', 'broker is shutting down')));
    };
    this.open.add(end);
    let replicaId: number | undefined;
    const onFirst = (request: ReplicaFetchRequest) => {
      if (!Number.isInteger(request.replica_id) || request.replica_id < 0) return;
      replicaId = request.replica_id;
      this.streamOpened(replicaId);
    };
    call.once('data', onFirst);
    let closedOnce = false;
    const onClose = () => {
      this.open.delete(end);
      if (closedOnce) return;
      closedOnce = true;
      if (replicaId !== undefined) this.streamClosed(replicaId);
    };
    call.on('close', onClose);
    call.on('cancelled', onClose);
    call.on('error', onClose);
    handleReplicate(this.deps, call);
  }

  private streamOpened(replicaId: number): void {
    this.streamsOf.set(replicaId, (this.streamsOf.get(replicaId) ?? 0) + 1);
    this.lossTimers.get(replicaId)?.cancel();
    this.lossTimers.delete(replicaId);
  }

  private streamClosed(replicaId: number): void {
    const left = (this.streamsOf.get(replicaId) ?? 1) - 1;
    if (left > 0) {
      this.streamsOf.set(replicaId, left);
      return;
    }
    this.streamsOf.delete(replicaId);
    if (this.closed || !this.deps.onFollowerLost) return;
    this.lossTimers.get(replicaId)?.cancel();
    const lossMs = this.deps.streamLossMs ?? DEFAULT_REPLICA_STREAM_LOSS_ISR_SHRINK_MS;
    this.lossTimers.set(
      replicaId,
      this.deps.clock.setTimeout(() => {
        this.lossTimers.delete(replicaId);
        if (this.closed || this.streamsOf.has(replicaId)) return;
        this.deps.logger.warn(
          { follower: replicaId, afterMs: lossMs },
          'replication stream of a follower broke and did not come back',
        );
        this.deps.onFollowerLost?.(replicaId);
      }, lossMs),
    );
  }
}

function handleReplicate(deps: LeaderFetchDeps, call: ReplicateCall): void {
  const session = new ReplicaFetchSession();
  const abort = new AbortController();
  const stop = () => abort.abort();
  call.on('cancelled', stop);
  call.on('close', stop);
  call.on('finish', stop);
  call.on('error', (err) => {
    stop();
    deps.logger.debug({ err }, 'replication stream closed with an error');
  });
  let queue: Promise<void> = Promise.resolve();
  call.on('data', (request: ReplicaFetchRequest) => {
    queue = queue.then(async () => {
      if (abort.signal.aborted) return;
      try {
        const response = await serveReplicaFetch(deps, session, request, abort.signal);
        if (!abort.signal.aborted && !call.destroyed) call.write(response);
      } catch (err) {
        if (!(err instanceof TideError))
          deps.logger.error({ err }, 'replication request failed unexpectedly');
        stop();
        if (!call.destroyed) call.emit('error', toGrpcStatus(err));
      }
    });
  });
  call.on('end', () => {
    void queue.then(() => {
      if (!call.destroyed && !abort.signal.aborted) call.end();
    });
  });
}
