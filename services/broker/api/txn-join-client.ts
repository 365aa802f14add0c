/**
 * The partition leader's side of implicit partition joins (partition/txn-join.ts): an
 * AddPartitionsToTxn call, for one partition, straight to the coordinator that owns the
 * transactional id (the shard owners this broker watches). Calls carry `tide-forwarded: 1` (a
 * coordinator never forwards). Retriable failures — no owner right now, the owner moving or still
 * loading, the previous transaction still completing, the coordinator unreachable — are retried
 * with a short backoff until the produce request's timeout; the coordinator's refusals
 * (PRODUCER_FENCED, TRANSACTION_ABORTED, INVALID_TXN_STATE, ...) are returned at once.
 */
import * as grpc from '@grpc/grpc-js';
import type { Clock } from '../../common/clock';
import { TideError } from '../../common/errors';
import { ClientCache } from '../../common/grpc/client-cache';
import { channelOptions } from '../../common/grpc/server';
import { fromGrpcError } from '../../common/grpc/status';
import { forwardedMetadata } from '../../common/grpc/routing-headers';
import { transactionsProto } from '../../common/grpc/transactions-proto';
import type { TransactionCoordinatorClient } from '../../common/grpc/generated/tide/v1/TransactionCoordinator';
import type { ShardOwners } from '../../common/cluster/coordinator-owners';
import type { TxnJoinRequest, TxnPartitionJoiner } from '../partition/txn-join';

const BACKOFF_MS = 20;
const BACKOFF_MAX_MS = 500;

export interface TxnJoinClientDeps {
  owners: () => ShardOwners | undefined;
  clock: Clock;
  credentials?: grpc.ChannelCredentials;
  maxMessageBytes?: number;
}

export class TxnJoinClient implements TxnPartitionJoiner {
  private readonly clients = new ClientCache<TransactionCoordinatorClient>(
    (address) =>
      new (transactionsProto().TransactionCoordinator)(
        address,
        this.deps.credentials ?? grpc.credentials.createInsecure(),
        channelOptions(this.deps.maxMessageBytes),
      ),
  );
  private closed = false;

  constructor(private readonly deps: TxnJoinClientDeps) {}

  async join(request: TxnJoinRequest): Promise<void> {
    const deadlineMs = this.deps.clock.nowMs() + request.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.call(request, deadlineMs);
      } catch (err) {
        const error = fromGrpcError(err);
        const delayMs = Math.min(BACKOFF_MAX_MS, BACKOFF_MS * 2 ** attempt);
        if (!error.retriable || this.closed || this.deps.clock.nowMs() + delayMs >= deadlineMs) throw error;
        await new Promise<void>((resolve) => this.deps.clock.setTimeout(resolve, delayMs));
      }
    }
  }

  close(): void {
    this.closed = true;
    this.clients.close();
  }

  private call(request: TxnJoinRequest, deadlineMs: number): Promise<void> {
    const owners = this.deps.owners();
    if (!owners)
      throw new TideError('COORDINATOR_NOT_AVAILABLE', 'this broker does not know the coordinators yet');
    const { owner } = owners.locate(request.transactionalId);
    return new Promise<void>((resolve, reject) =>
      this.clients.get(`${owner.host}:${owner.port}`).AddPartitionsToTxn(
        {
          transactional_id: request.transactionalId,
          producer_id: request.producerId,
          producer_epoch: request.producerEpoch,
          partitions: [{ topic: request.topic, partitions: [request.partition] }],
        },
        forwardedMetadata(),
        { deadline: new Date(deadlineMs) },
        (err) => (err ? reject(err) : resolve()),
      ),
    );
  }
}
