/**
 * The TransactionCoordinator service as every broker serves it: a relay, as for groups
 * (coordinator-forward.ts), so a client that reaches one broker can run transactions.
 * FindTransactionCoordinator is answered here from the metadata store; TxnOffsetCommit goes to the
 * coordinator of its GROUP, every other call to the coordinator of its transactional id (both
 * hash to the shards ShardOwners watches); ListTransactions asks every live coordinator and merges.
 *
 * The same rules as the group relay, from the same ShardRelay (shard-relay.ts): no second
 * forward, the caller's deadline and cancellation kept, an unreachable coordinator answering
 * COORDINATOR_NOT_AVAILABLE, a shard changing owner during the call ending it with NOT_COORDINATOR.
 */
import type * as grpc from '@grpc/grpc-js';
import { status as grpcStatus } from '@grpc/grpc-js';
import type { Logger } from '../../common/logger';
import type {
  TransactionCoordinatorClient,
  TransactionCoordinatorHandlers,
} from '../../common/grpc/generated/tide/v1/TransactionCoordinator';
import type { ListTransactionsResponse } from '../../common/grpc/generated/tide/v1/ListTransactionsResponse';
import type { CoordinatorLocator } from '../../common/cluster/coordinator-locator';
import { validateGroupId } from '../../common/cluster/coordinator-shards';
import { transactionsProto } from '../../common/grpc/transactions-proto';
import { unary } from '../../common/grpc/unary';
import { byGroup, ShardRelay, type RelayRoute, type ShardRelayDeps } from './shard-relay';

export interface TransactionRelayDeps extends ShardRelayDeps {
  locator: CoordinatorLocator;
  logger: Logger;
}

const byTxn = (request: { transactional_id: string }): RelayRoute => ({
  key: validateGroupId(request.transactional_id, 'transactional_id'),
  what: 'transactional id',
});

export class TransactionRelay {
  private readonly relay: ShardRelay<TransactionCoordinatorClient>;

  constructor(private readonly deps: TransactionRelayDeps) {
    this.relay = new ShardRelay(deps, {
      newClient: (address, credentials, options) =>
        new (transactionsProto().TransactionCoordinator)(address, credentials, options),
      coordinates: 'transactions',
      moves: 'shards',
    });
  }

  service(): { definition: grpc.ServiceDefinition; handlers: TransactionCoordinatorHandlers } {
    const { relay } = this;
    const { edge, locator } = this.deps;
    const handlers: TransactionCoordinatorHandlers = {
      FindTransactionCoordinator: unary(edge, 'FindTransactionCoordinator', (req) =>
        locator.find(validateGroupId(req.transactional_id, 'transactional_id')),
      ),
      InitTransactions: relay.routed('InitTransactions', byTxn, (c, r, m, o, cb) =>
        c.InitTransactions(r, m, o, cb),
      ),
      AddPartitionsToTxn: relay.routed('AddPartitionsToTxn', byTxn, (c, r, m, o, cb) =>
        c.AddPartitionsToTxn(r, m, o, cb),
      ),
      AddOffsetsToTxn: relay.routed('AddOffsetsToTxn', byTxn, (c, r, m, o, cb) =>
        c.AddOffsetsToTxn(r, m, o, cb),
      ),
      TxnOffsetCommit: relay.routed('TxnOffsetCommit', byGroup, (c, r, m, o, cb) =>
        c.TxnOffsetCommit(r, m, o, cb),
      ),
      EndTxn: relay.routed('EndTxn', byTxn, (c, r, m, o, cb) => c.EndTxn(r, m, o, cb)),
      // Not relayed: a client that reaches coordinators through a broker ends transactions with
      // EndTxn (the TypeScript client falls back to it on this answer).
      // Answered at the first message, once the caller's ACLs (checked per message) allow it.
      EndTxnStream: (call) =>
        call.once('data', () =>
          call.emit('error', {
            code: grpcStatus.UNIMPLEMENTED,
            details:
              'brokers do not relay EndTxnStream; send EndTxn, or EndTxnStream to the coordinator itself',
          }),
        ),
      DescribeTransaction: relay.routed('DescribeTransaction', byTxn, (c, r, m, o, cb) =>
        c.DescribeTransaction(r, m, o, cb),
      ),
      ListTransactions: relay.everyOwner(
        'ListTransactions',
        (c, r, m, o, cb) => c.ListTransactions(r, m, o, cb),
        (lists: ListTransactionsResponse[]) => ({
          transactions: lists
            .flatMap((l) => l.transactions)
            .sort((a, b) => (a.transactional_id < b.transactional_id ? -1 : 1)),
        }),
      ),
    };
    return { definition: transactionsProto().TransactionCoordinator.service, handlers };
  }

  close(): void {
    this.relay.close();
  }
}
