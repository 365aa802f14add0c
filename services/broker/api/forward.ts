/**
 * Proxy routing: a client that can reach only one broker (one `kubectl port-forward`) sends every
 * request there with the header `tide-routing: proxy`; for partitions led elsewhere this broker
 * forwards the request to the leader and relays the answer. Forwarded requests carry
 * `tide-forwarded: 1` and are never forwarded again, so a stale view cannot make a loop.
 * Produce requests of one partition are forwarded one at a time, in arrival order, so an
 * idempotent producer's sequence numbers arrive in order.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
import { echo } from '../../common/echo';
import { tideProto } from '../../common/grpc/proto';
import { ClientCache } from '../../common/grpc/client-cache';
import { channelOptions, ownConnectionChannelOptions } from '../../common/grpc/server';
import { fromGrpcError } from '../../common/grpc/status';
import type { AdminClient } from '../../common/grpc/generated/tide/v1/Admin';
import type { BrokerClient } from '../../common/grpc/generated/tide/v1/Broker';
import type { DeleteRecordsRequest } from '../../common/grpc/generated/tide/v1/DeleteRecordsRequest';
import type { DeleteRecordsResponse } from '../../common/grpc/generated/tide/v1/DeleteRecordsResponse';
import type { FetchRequest__Input } from '../../common/grpc/generated/tide/v1/FetchRequest';
import type { FetchResponse } from '../../common/grpc/generated/tide/v1/FetchResponse';
import type { ListOffsetsRequest } from '../../common/grpc/generated/tide/v1/ListOffsetsRequest';
import type { ListOffsetsResponse } from '../../common/grpc/generated/tide/v1/ListOffsetsResponse';
import type { ProduceRequest } from '../../common/grpc/generated/tide/v1/ProduceRequest';
import type { ProduceResponse } from '../../common/grpc/generated/tide/v1/ProduceResponse';
import type { MetadataView } from './registry';
import { forwardedMetadata, INTERNAL_TOKEN_HEADER } from '../../common/grpc/routing-headers';

/** Extra time a forwarded call may take beyond the client's own timeout. */
const FORWARD_MARGIN_MS = 5_000;

/** Errors after which forwarding to the leader can help. */
export function isLedElsewhere(err: unknown): boolean {
  return err instanceof TideError && err.code === 'NOT_LEADER';
}

export class LeaderForwarder {
  private readonly clients = new ClientCache<BrokerClient>((address) => this.brokerClient(address));
  /**
   * Forwarded fetches on connections apart from the forwarded produce requests: the two carry bulk
   * data opposite ways (ownConnectionChannelOptions).
   */
  private readonly fetchClients = new ClientCache<BrokerClient>((address) => this.brokerClient(address));
  /** Admin stubs, for the one Admin call a leader serves (DeleteRecords). */
  private readonly adminClients = new ClientCache<AdminClient>(
    (address) => new (tideProto().Admin)(address, this.credentials, channelOptions()),
  );
  private readonly produceChains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly metadata: MetadataView,
    /** TLS to the other brokers (the broker's ServiceSecurity.channel); plain text by default. */
    private readonly credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
  ) {}

  /** The leader's address from this broker's metadata, or a retriable error. */
  leaderAddress(topic: string, partition: number): string {
    const [info] = this.metadata.topics([topic]);
    if (!info)
      throw new TideError('UNKNOWN_TOPIC', `topic ${echo(topic)} does not exist`, {
        context: { topic, partition },
      });
    const leader = info.partitions?.find((p) => p.partition === partition)?.leader ?? -1;
    const broker = this.metadata.brokers().find((b) => b.id === leader);
    if (leader < 0 || !broker) {
      throw new TideError(
        'LEADER_NOT_AVAILABLE',
        `${topic}-${partition} has no reachable leader (leader ${leader})`,
        {
          context: { topic, partition, broker: leader },
        },
      );
    }
    return `${broker.host}:${broker.port}`;
  }

  /** `internalToken`: passed on when the original call carried it (a coordinator's write). */
  produce(request: ProduceRequest, timeoutMs: number, internalToken?: string): Promise<ProduceResponse> {
    const key = `${request.topic}\u0000${request.partition}`;
    const previous = this.produceChains.get(key) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() =>
        this.call<ProduceResponse>(
          request.topic,
          request.partition,
          timeoutMs,
          (client, metadata, options, cb) => {
            if (internalToken !== undefined) metadata.set(INTERNAL_TOKEN_HEADER, internalToken);
            client.Produce(request, metadata, options, cb);
          },
        ),
      );
    this.produceChains.set(key, next);
    void next
      .finally(() => {
        if (this.produceChains.get(key) === next) this.produceChains.delete(key);
      })
      .catch(() => undefined);
    return next;
  }

  fetch(
    request: FetchRequest__Input & { topic: string; partition: number },
    timeoutMs: number,
  ): Promise<FetchResponse> {
    return this.call<FetchResponse>(
      request.topic,
      request.partition,
      timeoutMs,
      (client, metadata, options, cb) => client.Fetch(request, metadata, options, cb),
      this.fetchClients,
    );
  }

  listOffsets(request: ListOffsetsRequest, timeoutMs: number): Promise<ListOffsetsResponse> {
    return this.call<ListOffsetsResponse>(
      request.topic,
      request.partition,
      timeoutMs,
      (client, metadata, options, cb) => client.ListOffsets(request, metadata, options, cb),
    );
  }

  deleteRecords(request: DeleteRecordsRequest, timeoutMs: number): Promise<DeleteRecordsResponse> {
    return this.call<DeleteRecordsResponse, AdminClient>(
      request.topic,
      request.partition,
      timeoutMs,
      (client, metadata, options, cb) => client.DeleteRecords(request, metadata, options, cb),
      this.adminClients,
    );
  }

  /** A Broker stub on a connection of its own. */
  private brokerClient(address: string): BrokerClient {
    return new (tideProto().Broker)(address, this.credentials, ownConnectionChannelOptions());
  }

  close(): void {
    this.clients.close();
    this.fetchClients.close();
    this.adminClients.close();
  }

  private call<T, C extends { close(): void } = BrokerClient>(
    topic: string,
    partition: number,
    timeoutMs: number,
    invoke: (
      client: C,
      metadata: grpc.Metadata,
      options: grpc.CallOptions,
      cb: (err: grpc.ServiceError | null, res?: T) => void,
    ) => void,
    clients: ClientCache<C> = this.clients as unknown as ClientCache<C>,
  ): Promise<T> {
    const client = clients.get(this.leaderAddress(topic, partition));
    const options = { deadline: Date.now() + timeoutMs + FORWARD_MARGIN_MS };
    return new Promise<T>((resolve, reject) =>
      invoke(client, forwardedMetadata(), options, (err, res) =>
        err ? reject(fromGrpcError(err)) : resolve(res as T),
      ),
    );
  }
}
