/**
 * The client's calls to the transaction coordinator: routed like group calls
 * (group/coordinator-client.ts) — a transactional id hashes to the same shards as a group id, so
 * FindCoordinator with it names the owner — straight to the coordinator, or through the control
 * broker's relay. Retries on retriable errors (the coordinator moving or loading, a previous
 * transaction still completing), finding the coordinator again after NOT_COORDINATOR.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../services/common/errors';
import { transactionsProto } from '../../services/common/grpc/transactions-proto';
import type { TransactionCoordinatorClient } from '../../services/common/grpc/generated/tide/v1/TransactionCoordinator';
import type { Invoke } from '../net/broker-calls';
import {
  COORDINATOR_ERRORS,
  DEFAULT_COORDINATOR_RETRY,
  type CoordinatorClient,
} from '../group/coordinator-client';
import { retry, type RetryOptions } from '../retry';

export class TxnCalls {
  private readonly clients = new Map<string, TransactionCoordinatorClient>();

  constructor(
    private readonly coordinators: CoordinatorClient,
    private readonly retryOptions: Partial<RetryOptions> = DEFAULT_COORDINATOR_RETRY,
  ) {}

  /** A unary call to the coordinator of `routeKey` (the transactional id, or the group for offsets). */
  call<T>(routeKey: string, invoke: Invoke<TransactionCoordinatorClient, T>): Promise<T> {
    const cluster = this.coordinators.cluster;
    return retry(
      async () => {
        try {
          const target = await this.coordinators.target(routeKey);
          if (!target.relayed) return await cluster.calls.call(this.client(target.address, false), invoke);
          return await cluster.withControlBroker((address) =>
            cluster.calls.call(this.client(address, true), invoke),
          );
        } catch (err) {
          if (COORDINATOR_ERRORS.has((err as TideError).code)) this.coordinators.forget(routeKey);
          throw err;
        }
      },
      this.retryOptions,
      { clock: cluster.clock },
    );
  }

  /** A client on the channel the group calls use (a coordinator's, or the broker pool's). */
  private client(address: string, broker: boolean): TransactionCoordinatorClient {
    const key = `${broker ? 'broker' : 'coordinator'}:${address}`;
    let client = this.clients.get(key);
    if (!client) {
      const channel = broker
        ? this.coordinators.brokerClient(address).getChannel()
        : this.coordinators.client(address).getChannel();
      const Client = transactionsProto().TransactionCoordinator;
      // Shares the channel: never closed here (the coordinator client or the pool closes it).
      client = new Client(address, grpc.credentials.createInsecure(), { channelOverride: channel });
      this.clients.set(key, client);
    }
    return client;
  }
}
