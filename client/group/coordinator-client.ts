/**
 * The client's way to group coordinators: FindCoordinator through any broker (the cluster's control
 * broker), a cached coordinator address per group, gRPC clients per coordinator address, and unary
 * calls that find the coordinator again and retry when it moved (NOT_COORDINATOR), is between
 * owners (COORDINATOR_NOT_AVAILABLE) or is unreachable (BROKER_NOT_AVAILABLE).
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../services/common/errors';
import { coordinatorProto } from '../../services/group-coordinator/api/proto';
import type { GroupCoordinatorClient } from '../../services/common/grpc/generated/tide/v1/GroupCoordinator';
import type { FindCoordinatorResponse } from '../../services/common/grpc/generated/tide/v1/FindCoordinatorResponse';
import type { DescribeCoordinatorsResponse } from '../../services/common/grpc/generated/tide/v1/DescribeCoordinatorsResponse';
import { Cluster, unary } from '../cluster';
import { channelOptionsFor, type ConnectionOptions } from '../connection';
import { DEFAULT_RETRY, retry, type RetryOptions } from '../retry';

/** Errors after which the group's coordinator is looked up again. */
export const COORDINATOR_ERRORS: ReadonlySet<string> = new Set([
  'NOT_COORDINATOR',
  'COORDINATOR_NOT_AVAILABLE',
  'BROKER_NOT_AVAILABLE',
]);

/** Coordinator moves take a lease TTL plus a shard load: retry for about half a minute. */
export const DEFAULT_COORDINATOR_RETRY: RetryOptions = {
  ...DEFAULT_RETRY,
  attempts: 20,
  maxBackoffMs: 2_000,
};

export class CoordinatorClient {
  private readonly clients = new Map<string, GroupCoordinatorClient>();
  private readonly addresses = new Map<string, string>();
  private readonly channelOptions: grpc.ChannelOptions;
  private closed = false;

  constructor(
    readonly cluster: Cluster,
    connection: ConnectionOptions = {},
    private readonly retryOptions: Partial<RetryOptions> = DEFAULT_COORDINATOR_RETRY,
  ) {
    this.channelOptions = channelOptionsFor(connection);
  }

  /** The address of the group's coordinator (cached until `forget`). */
  async find(groupId: string): Promise<string> {
    const cached = this.addresses.get(groupId);
    if (cached) return cached;
    const response = await this.cluster.withControlBroker((address) =>
      unary<FindCoordinatorResponse>((cb) =>
        this.onBroker(address).FindCoordinator(
          { group_id: groupId },
          { deadline: this.cluster.deadline() },
          cb,
        ),
      ),
    );
    const c = response.coordinator;
    if (!c) throw new TideError('COORDINATOR_NOT_AVAILABLE', `no coordinator named for group ${groupId}`);
    const address = `${c.host}:${c.port}`;
    this.addresses.set(groupId, address);
    return address;
  }

  /** Drops the cached coordinator of a group (after NOT_COORDINATOR or a broken connection). */
  forget(groupId: string): void {
    this.addresses.delete(groupId);
  }

  /** Live coordinators and shard owners, from any broker. */
  describeCoordinators(): Promise<DescribeCoordinatorsResponse> {
    return retry(
      () =>
        this.cluster.withControlBroker((address) =>
          unary<DescribeCoordinatorsResponse>((cb) =>
            this.onBroker(address).DescribeCoordinators({}, { deadline: this.cluster.deadline() }, cb),
          ),
        ),
      this.retryOptions,
      { clock: this.cluster.clock },
    );
  }

  /** The GroupCoordinator client of a coordinator address. */
  client(address: string): GroupCoordinatorClient {
    if (this.closed)
      throw new TideError('BROKER_NOT_AVAILABLE', 'the client is closed', { retriable: false });
    let client = this.clients.get(address);
    if (!client) {
      const Client = coordinatorProto().GroupCoordinator;
      client = new Client(address, grpc.credentials.createInsecure(), this.channelOptions);
      this.clients.set(address, client);
    }
    return client;
  }

  /**
   * Runs a unary call against the group's coordinator, finding it again and retrying on
   * COORDINATOR_ERRORS; other errors are thrown as they are.
   */
  call<T>(
    groupId: string,
    invoke: (
      client: GroupCoordinatorClient,
      options: grpc.CallOptions,
      cb: grpc.requestCallback<T>,
    ) => unknown,
  ): Promise<T> {
    return retry(
      async () => {
        const address = await this.find(groupId);
        try {
          return await unary<T>((cb) =>
            invoke(this.client(address), { deadline: this.cluster.deadline() }, cb),
          );
        } catch (err) {
          if (COORDINATOR_ERRORS.has((err as TideError).code)) this.forget(groupId);
          throw err;
        }
      },
      this.retryOptions,
      { clock: this.cluster.clock },
    );
  }

  close(): void {
    this.closed = true;
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  /** A GroupCoordinator client sharing the broker's channel (brokers answer the lookups). */
  private onBroker(address: string): GroupCoordinatorClient {
    const Client = coordinatorProto().GroupCoordinator;
    return new Client(address, grpc.credentials.createInsecure(), {
      ...this.channelOptions,
      channelOverride: this.cluster.pool.broker(address).getChannel(),
    });
  }
}
