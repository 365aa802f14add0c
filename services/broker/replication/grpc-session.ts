/**
 * A replication session over gRPC: one `tide.v1.internal.Replication/Replicate` bidi stream on its
 * own channel and connection, with Tide's large message limits and HTTP/2 windows (channelOptions()), so big
 * batches stream without flow-control stalls. One request in flight; the stream's failure rejects
 * it and every later fetch (the fetcher then opens a new session).
 */
import * as grpc from '@grpc/grpc-js';
import { assert } from '../../common/assert';
import { TideError } from '../../common/errors';
import { internalProto } from '../../common/grpc/proto';
import { ownConnectionChannelOptions } from '../../common/grpc/server';
import { fromGrpcError } from '../../common/grpc/status';
import type { ReplicaFetchRequest } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchRequest';
import type { ReplicaFetchResponse } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchResponse';
import type { ReplicaFetchRequest__Input } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchRequest';
import type { LeaderEndpoint, ReplicationConnector, ReplicationSession } from './session';

export interface GrpcConnectorOptions {
  /** Largest message either way; default channelOptions()'s. */
  maxMessageBytes?: number;
  /** TLS to the leader (the broker's ServiceSecurity.channel); plain text by default. */
  credentials?: grpc.ChannelCredentials;
}

/** Opens gRPC replication sessions. */
export function grpcConnector(options: GrpcConnectorOptions = {}): ReplicationConnector {
  return (leader) => new GrpcReplicationSession(leader, options);
}

interface Pending {
  resolve: (response: ReplicaFetchResponse) => void;
  reject: (err: Error) => void;
}

class GrpcReplicationSession implements ReplicationSession {
  private readonly client: grpc.Client;
  private readonly call: grpc.ClientDuplexStream<ReplicaFetchRequest__Input, ReplicaFetchResponse>;
  private pending: Pending | undefined;
  private broken: TideError | undefined;

  constructor(
    private readonly leader: LeaderEndpoint,
    options: GrpcConnectorOptions,
  ) {
    const Replication = internalProto().replication.Replication;
    const client = new Replication(
      `${leader.host}:${leader.port}`,
      options.credentials ?? grpc.credentials.createInsecure(),
      // Its own connection: fetched data flows leader → follower here, and this broker's forwarded
      // produce requests (proxy routing) flow the other way to the same leader.
      ownConnectionChannelOptions(options.maxMessageBytes),
    );
    this.client = client;
    this.call = client.Replicate();
    this.call.on('data', (response: ReplicaFetchResponse) => {
      const pending = this.pending;
      this.pending = undefined;
      pending?.resolve(response);
    });
    this.call.on('error', (err: Error) => this.fail(fromGrpcError(err)));
    this.call.on('end', () =>
      this.fail(new TideError('BROKER_NOT_AVAILABLE', `broker ${leader.id} ended the replication stream`)),
    );
  }

  fetch(request: ReplicaFetchRequest): Promise<ReplicaFetchResponse> {
    if (this.broken) return Promise.reject(this.broken);
    assert(this.pending === undefined, 'one replication request in flight per stream');
    return new Promise<ReplicaFetchResponse>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.call.write(request);
    });
  }

  close(): void {
    this.fail(new TideError('BROKER_NOT_AVAILABLE', `replication stream to broker ${this.leader.id} closed`));
  }

  private fail(err: TideError): void {
    if (!this.broken) {
      this.broken = err;
      this.call.cancel();
      this.client.close();
    }
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(this.broken);
  }
}
