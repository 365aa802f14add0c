/**
 * The `tide.v1.internal.Replication` gRPC service a leader broker serves: one Replicate bidi
 * stream per follower broker, its requests answered one at a time in order by serveReplicaFetch
 * (leader-fetch.ts), which long-polls. A malformed request ends the stream with INVALID_REQUEST;
 * partition-level problems travel inside the answers and the stream goes on.
 *
 *   server.addService(internalProto().replication.Replication.service, replicationHandlers(deps));
 */
import type * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
import { toGrpcStatus } from '../../common/grpc/status';
import type { ReplicationHandlers } from '../../common/grpc/generated/tide/v1/internal/Replication';
import type { ReplicaFetchRequest } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchRequest';
import type { ReplicaFetchResponse__Input } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchResponse';
import { ReplicaFetchSession, serveReplicaFetch, type LeaderFetchDeps } from './leader-fetch';

export function replicationHandlers(deps: LeaderFetchDeps): ReplicationHandlers {
  return { Replicate: (call) => handleReplicate(deps, call) };
}

function handleReplicate(
  deps: LeaderFetchDeps,
  call: grpc.ServerDuplexStream<ReplicaFetchRequest, ReplicaFetchResponse__Input>,
): void {
  const session = new ReplicaFetchSession();
  const abort = new AbortController();
  const stop = () => abort.abort();
  call.on('cancelled', stop);
  call.on('close', stop);
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
