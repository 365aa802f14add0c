/**
 * The client's way to group coordinators: FindCoordinator through any broker (the cluster's control
 * broker), a cached coordinator address per group, gRPC clients per coordinator address, and unary
 * calls that find the coordinator again and retry when it moved (NOT_COORDINATOR), is between
 * owners (COORDINATOR_NOT_AVAILABLE) or is unreachable (BROKER_NOT_AVAILABLE).
 *
 * Routing follows the cluster's: with 'bootstrap' routing (configured, or chosen by 'auto' because
 * advertised brokers were unreachable) every group call goes to the control broker, which relays
 * it to the group's coordinator; with 'direct', straight to the coordinator; with 'auto' and
 * reachable brokers, the first coordinator address found is probed (ADVERTISED_PROBE_TIMEOUT_MS)
 * and, when it cannot be reached (a port-forward, a NAT), group calls are relayed from then on.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../services/common/errors';
import { coordinatorProto } from '../../services/common/grpc/coordinator-proto';
import type { GroupCoordinatorClient } from '../../services/common/grpc/generated/tide/v1/GroupCoordinator';
import type { FindCoordinatorResponse } from '../../services/common/grpc/generated/tide/v1/FindCoordinatorResponse';
import type { DescribeCoordinatorsResponse } from '../../services/common/grpc/generated/tide/v1/DescribeCoordinatorsResponse';
import { ADVERTISED_PROBE_TIMEOUT_MS, Cluster } from '../cluster';
import type { Invoke } from '../net/broker-calls';
import { channelOptionsFor, type ConnectionOptions } from '../net/connection';
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

/** Where a group's calls go: a coordinator, or (`relayed`) the control broker, which relays them. */
export interface CoordinatorTarget {
  relayed: boolean;
  address: string;
  client: GroupCoordinatorClient;
}

export class CoordinatorClient {
  private readonly clients = new Map<string, GroupCoordinatorClient>();
  private readonly brokerClients = new Map<string, GroupCoordinatorClient>();
  private readonly addresses = new Map<string, string>();
  private readonly channelOptions: grpc.ChannelOptions;
  private readonly credentials: grpc.ChannelCredentials;
  /** 'auto' routing's decision for coordinators; undefined until the first probe. */
  private relay: boolean | undefined;
  private probing: Promise<void> | undefined;
  private closed = false;

  constructor(
    readonly cluster: Cluster,
    connection: ConnectionOptions = {},
    private readonly retryOptions: Partial<RetryOptions> = DEFAULT_COORDINATOR_RETRY,
  ) {
    this.channelOptions = channelOptionsFor(connection);
    this.credentials = connection.credentials ?? grpc.credentials.createInsecure();
  }

  /** The address of the group's coordinator (cached until `forget`). */
  async find(groupId: string): Promise<string> {
    const cached = this.addresses.get(groupId);
    if (cached) return cached;
    const response = await this.cluster.withControlBroker((address) =>
      this.cluster.calls.call<GroupCoordinatorClient, FindCoordinatorResponse>(
        this.brokerClient(address),
        (c, o, cb) => c.FindCoordinator({ group_id: groupId }, o, cb),
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
          this.cluster.calls.call<GroupCoordinatorClient, DescribeCoordinatorsResponse>(
            this.brokerClient(address),
            (c, o, cb) => c.DescribeCoordinators({}, o, cb),
          ),
        ),
      this.retryOptions,
      { clock: this.cluster.clock },
    );
  }

  /**
   * Whether group calls go through the control broker's relay. With 'auto' routing and `address`
   * (a coordinator's advertised address) not yet probed, probes it first; without `address`,
   * an undecided 'auto' answers false.
   */
  async relayed(address?: string): Promise<boolean> {
    await this.cluster.connect();
    if (this.cluster.routing === 'bootstrap') return true;
    if (this.cluster.configuredRouting !== 'auto') return false;
    if (this.relay === undefined && address !== undefined) {
      this.probing ??= this.probe(address);
      await this.probing;
    }
    return this.relay ?? false;
  }

  /** Where the calls of `groupId` go now: its coordinator, or (relay routing) the control broker. */
  async target(groupId: string): Promise<CoordinatorTarget> {
    if (!(await this.relayed())) {
      const address = await this.find(groupId);
      if (!(await this.relayed(address))) return { relayed: false, address, client: this.client(address) };
    }
    const address = this.cluster.anyBroker();
    return { relayed: true, address, client: this.brokerClient(address) };
  }

  /** Coordinator addresses this client holds channels to (relayed calls use the broker's). */
  openAddresses(): string[] {
    return [...this.clients.keys()];
  }

  /** The GroupCoordinator client of a coordinator address. */
  client(address: string): GroupCoordinatorClient {
    if (this.closed)
      throw new TideError('BROKER_NOT_AVAILABLE', 'the client is closed', { retriable: false });
    let client = this.clients.get(address);
    if (!client) {
      const Client = coordinatorProto().GroupCoordinator;
      client = new Client(address, this.credentials, this.channelOptions);
      this.clients.set(address, client);
    }
    return client;
  }

  /**
   * Runs a unary call against the group's coordinator, finding it again and retrying on
   * COORDINATOR_ERRORS; other errors are thrown as they are.
   */
  call<T>(groupId: string, invoke: Invoke<GroupCoordinatorClient, T>): Promise<T> {
    const run = (client: GroupCoordinatorClient) => this.cluster.calls.call(client, invoke);
    return retry(
      async () => {
        try {
          const target = await this.target(groupId);
          if (!target.relayed) return await run(target.client);
          // Relayed: a control broker that went away is replaced by another bootstrap broker.
          return await this.cluster.withControlBroker((address) => run(this.brokerClient(address)));
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
    this.brokerClients.clear();
  }

  /**
   * A GroupCoordinator client sharing the broker's channel (brokers answer the lookups and relay
   * the rest). Never closed here: closing it would close the pool's channel.
   */
  brokerClient(address: string): GroupCoordinatorClient {
    let client = this.brokerClients.get(address);
    if (!client) {
      const Client = coordinatorProto().GroupCoordinator;
      client = new Client(address, this.credentials, {
        ...this.channelOptions,
        channelOverride: this.cluster.pool.broker(address).getChannel(),
      });
      this.brokerClients.set(address, client);
    }
    return client;
  }

  /** 'auto' routing: can the coordinator's advertised address be reached from here? */
  private async probe(address: string): Promise<void> {
    const client = this.client(address);
    const reachable = await new Promise<boolean>((resolve) =>
      client.waitForReady(Date.now() + ADVERTISED_PROBE_TIMEOUT_MS, (err) => resolve(!err)),
    );
    if (reachable) {
      this.relay = false;
      return;
    }
    this.clients.delete(address);
    client.close();
    this.relay = true;
    this.cluster.logger.warn(
      { coordinator: address, broker: this.cluster.anyBroker() },
      "the group coordinator's advertised address is unreachable from here; relaying group calls through the bootstrap broker",
    );
  }
}
