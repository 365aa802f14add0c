/**
 * Replication sessions to leaders in the same process: the follower's requests go straight to
 * the leader's serveReplicaFetch, without gRPC. For tests and single-process multi-broker setups;
 * the protocol (long poll, one request in flight, the answers) is exactly the wire's.
 */
import { TideError } from '../../common/errors';
import type { ReplicaFetchRequest } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchRequest';
import type { ReplicaFetchResponse } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchResponse';
import type { ReplicaFetchResponse__Input } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchResponse';
import { ReplicaFetchSession, serveReplicaFetch, type LeaderFetchDeps } from './leader-fetch';
import type { ReplicationConnector, ReplicationSession } from './session';

/**
 * Connects to the leader whose fetch deps `leaders` returns by broker id (undefined: the broker is
 * down, and fetches fail with BROKER_NOT_AVAILABLE as a refused connection would).
 */
export function inProcessConnector(
  leaders: (brokerId: number) => LeaderFetchDeps | undefined,
): ReplicationConnector {
  return (leader) => {
    const abort = new AbortController();
    const session = new ReplicaFetchSession();
    const unavailable = () => new TideError('BROKER_NOT_AVAILABLE', `broker ${leader.id} is not reachable`);
    const replication: ReplicationSession = {
      async fetch(request: ReplicaFetchRequest): Promise<ReplicaFetchResponse> {
        const deps = leaders(leader.id);
        if (abort.signal.aborted || !deps) throw unavailable();
        const response = await serveReplicaFetch(deps, session, request, abort.signal);
        if (abort.signal.aborted || leaders(leader.id) !== deps) throw unavailable();
        return toOutput(response);
      },
      close: () => abort.abort(),
    };
    return replication;
  };
}

/** What grpc-js would hand the follower: every field present, int64 as number, bytes as Buffer. */
function toOutput(input: ReplicaFetchResponse__Input): ReplicaFetchResponse {
  return {
    partitions: (input.partitions ?? []).map((p) => ({
      topic: p.topic ?? '',
      partition: p.partition ?? 0,
      error_code: p.error_code ?? '',
      error_message: p.error_message ?? '',
      high_watermark: Number(p.high_watermark ?? 0),
      log_start_offset: Number(p.log_start_offset ?? 0),
      record_batches: Buffer.isBuffer(p.record_batches)
        ? p.record_batches
        : Buffer.from((p.record_batches as Uint8Array | undefined) ?? []),
      diverging_epoch: p.diverging_epoch
        ? { epoch: p.diverging_epoch.epoch ?? 0, end_offset: Number(p.diverging_epoch.end_offset ?? 0) }
        : null,
      leader_log_end_offset: Number(p.leader_log_end_offset ?? 0),
    })),
  };
}
