/**
 * The follower's view of one replication stream to a leader broker, independent of the transport:
 * one request in flight at a time, answered by one response (the protocol of replication.proto).
 * grpc-session.ts implements it over gRPC; in-process.ts calls a leader in the same process.
 */
import type { ReplicaFetchRequest } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchRequest';
import type { ReplicaFetchResponse } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchResponse';

/** Where a leader broker listens (from the broker registry). */
export interface LeaderEndpoint {
  id: number;
  host: string;
  port: number;
}

export interface ReplicationSession {
  /**
   * Sends one request and resolves with the leader's answer. Rejects (BROKER_NOT_AVAILABLE...)
   * when the stream broke; the session is then dead and a new one must be opened.
   */
  fetch(request: ReplicaFetchRequest): Promise<ReplicaFetchResponse>;
  /** Ends the stream; a pending fetch rejects. */
  close(): void;
}

/** Opens a session to a leader broker. */
export type ReplicationConnector = (leader: LeaderEndpoint) => ReplicationSession;
