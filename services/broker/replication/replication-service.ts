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
 */
import type * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
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
export class ReplicationService {
  private readonly open = new Set<() => void>();
  private closed = false;

  constructor(private readonly deps: LeaderFetchDeps) {}

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
    call.on('close', () => this.open.delete(end));
    handleReplicate(this.deps, call);
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
