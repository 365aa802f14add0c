/**
 * Transaction administration: list the transactional ids the coordinators know, describe one
 * (state, producer id and epoch, partitions, start time). Through the brokers' relay or straight to
 * the coordinator, as the cluster routes group calls (producer/txn-calls.ts).
 */
import * as grpc from '@grpc/grpc-js';
import { transactionsProto } from '../services/common/grpc/transactions-proto';
import type { TransactionCoordinatorClient } from '../services/common/grpc/generated/tide/v1/TransactionCoordinator';
import type { ListTransactionsResponse } from '../services/common/grpc/generated/tide/v1/ListTransactionsResponse';
import type { DescribeTransactionResponse } from '../services/common/grpc/generated/tide/v1/DescribeTransactionResponse';
import type { CoordinatorClient } from './group/coordinator-client';
import { TxnCalls } from './producer/txn-calls';
import { retry } from './retry';

export interface TransactionListing {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  state: string;
  coordinatorId: string;
}

export interface TransactionDescription extends TransactionListing {
  timeoutMs: number;
  /** 0 when no transaction is open. */
  startTimeMs: number;
  lastUpdateMs: number;
  partitions: { topic: string; partition: number }[];
  groups: string[];
}

export class TransactionAdmin {
  private readonly calls: TxnCalls;

  constructor(private readonly coordinators: CoordinatorClient) {
    this.calls = new TxnCalls(coordinators);
  }

  /** Every transactional id of every live coordinator (optionally only in these states). */
  async listTransactions(states: string[] = []): Promise<TransactionListing[]> {
    const cluster = this.coordinators.cluster;
    const r = await retry(
      () =>
        cluster.withControlBroker((address) => {
          const client: TransactionCoordinatorClient = new (transactionsProto().TransactionCoordinator)(
            address,
            grpc.credentials.createInsecure(),
            { channelOverride: this.coordinators.brokerClient(address).getChannel() },
          );
          return cluster.calls.call<TransactionCoordinatorClient, ListTransactionsResponse>(
            client,
            (c, o, cb) => c.ListTransactions({ states }, o, cb),
          );
        }),
      { attempts: 5 },
      { clock: cluster.clock },
    );
    return r.transactions.map((t) => ({
      transactionalId: t.transactional_id,
      producerId: t.producer_id,
      producerEpoch: t.producer_epoch,
      state: t.state,
      coordinatorId: t.coordinator_id,
    }));
  }

  async describeTransaction(transactionalId: string): Promise<TransactionDescription> {
    const r = await this.calls.call<DescribeTransactionResponse>(transactionalId, (c, o, cb) =>
      c.DescribeTransaction({ transactional_id: transactionalId }, o, cb),
    );
    const t = r.transaction!;
    return {
      transactionalId: t.transactional_id,
      producerId: t.producer_id,
      producerEpoch: t.producer_epoch,
      state: t.state,
      coordinatorId: t.coordinator_id,
      timeoutMs: t.timeout_ms,
      startTimeMs: t.start_time_ms,
      lastUpdateMs: t.last_update_ms,
      partitions: t.partitions.flatMap((tp) =>
        tp.partitions.map((partition) => ({ topic: tp.topic, partition })),
      ),
      groups: t.groups,
    };
  }
}
