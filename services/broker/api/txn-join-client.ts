/**
 * The partition leader's side of implicit partition joins (partition/txn-join.ts): an
 * AddPartitionsToTxn call, for one partition, straight to the coordinator that owns the
 * transactional id (the shard owners this broker watches), on one long-lived TxnJoins.JoinStream
 * per coordinator (protos/tide/v1/internal/txn_joins.proto; AddPartitionsToTxn with a coordinator
 * that lacks it, its calls marked `tide-forwarded: 1`: a coordinator never forwards). Retriable failures — no owner right now, the owner moving or still
 * loading, the previous transaction still completing, the coordinator unreachable — are retried
 * with a short backoff until the produce request's timeout; the coordinator's refusals
 * (PRODUCER_FENCED, TRANSACTION_ABORTED, INVALID_TXN_STATE, ...) are returned at once.
 */
import * as grpc from '@grpc/grpc-js';
import type { Clock } from '../../common/clock';
import { TideError } from '../../common/errors';
import { channelOptions } from '../../common/grpc/server';
import { fromGrpcError } from '../../common/grpc/status';
import { StreamCallsClient } from '../../common/grpc/stream-calls';
import { forwardedMetadata, INTERNAL_TOKEN_HEADER } from '../../common/grpc/routing-headers';
import { transactionsProto, txnInternalProto } from '../../common/grpc/transactions-proto';
import type { TransactionCoordinatorClient } from '../../common/grpc/generated/tide/v1/TransactionCoordinator';
import type { TxnJoinsClient } from '../../common/grpc/generated/tide/v1/internal/TxnJoins';
import type { AddPartitionsToTxnRequest__Input } from '../../common/grpc/generated/tide/v1/AddPartitionsToTxnRequest';
import type { ShardOwners } from '../../common/cluster/coordinator-owners';
import type { TxnJoinRequest, TxnPartitionJoiner } from '../partition/txn-join';

const BACKOFF_MS = 20;
const BACKOFF_MAX_MS = 500;

export interface TxnJoinClientDeps {
  owners: () => ShardOwners | undefined;
  clock: Clock;
  credentials?: grpc.ChannelCredentials;
  maxMessageBytes?: number;
  /** The cluster's internal token (read when a stream opens): JoinStream is internal. */
  internalToken: () => string;
}

/** One coordinator's connection: the stream, and the unary client for a coordinator without it. */
interface CoordinatorLink {
  unary: TransactionCoordinatorClient;
  joins: TxnJoinsClient;
  calls: StreamCallsClient<AddPartitionsToTxnRequest__Input, unknown>;
}

export class TxnJoinClient implements TxnPartitionJoiner {
  private readonly links = new Map<string, CoordinatorLink>();
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
    for (const link of this.links.values()) {
      link.calls.close();
      link.joins.close();
      link.unary.close();
    }
    this.links.clear();
  }

  private link(address: string): CoordinatorLink {
    let link = this.links.get(address);
    if (link) return link;
    const credentials = this.deps.credentials ?? grpc.credentials.createInsecure();
    const unary = new (transactionsProto().TransactionCoordinator)(
      address,
      credentials,
      channelOptions(this.deps.maxMessageBytes),
    );
    // Both clients on one channel: one connection per coordinator.
    const joins = new (txnInternalProto().TxnJoins)(address, credentials, {
      channelOverride: unary.getChannel(),
    });
    const metadata = () => {
      const m = forwardedMetadata();
      m.set(INTERNAL_TOKEN_HEADER, this.deps.internalToken());
      return m;
    };
    const calls = new StreamCallsClient<AddPartitionsToTxnRequest__Input, unknown>({
      open: () => joins.JoinStream(metadata()),
      unary: (request, timeoutMs) =>
        new Promise((resolve, reject) =>
          unary.AddPartitionsToTxn(
            request,
            forwardedMetadata(),
            { deadline: new Date(Date.now() + timeoutMs) },
            (err, res) => (err ? reject(err) : resolve(res)),
          ),
        ),
      clock: this.deps.clock,
      describe: `AddPartitionsToTxn at coordinator ${address}`,
    });
    link = { unary, joins, calls };
    this.links.set(address, link);
    return link;
  }

  private async call(request: TxnJoinRequest, deadlineMs: number): Promise<void> {
    const owners = this.deps.owners();
    if (!owners)
      throw new TideError('COORDINATOR_NOT_AVAILABLE', 'this broker does not know the coordinators yet');
    const { owner } = owners.locate(request.transactionalId);
    await this.link(`${owner.host}:${owner.port}`).calls.call(
      {
        transactional_id: request.transactionalId,
        producer_id: request.producerId,
        producer_epoch: request.producerEpoch,
        partitions: [{ topic: request.topic, partitions: [request.partition] }],
      },
      Math.max(1, deadlineMs - this.deps.clock.nowMs()),
    );
  }
}
