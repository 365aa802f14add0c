/**
 * The TransactionCoordinator service as every broker serves it: a relay, as for groups
 * (coordinator-forward.ts), so a client that reaches one broker can run transactions.
 * FindTransactionCoordinator is answered here from the metadata store; TxnOffsetCommit goes to the
 * coordinator of its GROUP, every other call to the coordinator of its transactional id (both
 * hash to the shards ShardOwners watches); ListTransactions asks every live coordinator and merges.
 *
 * The same rules as the group relay: relayed calls carry `tide-forwarded: 1` and a broker refuses
 * a forwarded call rather than relaying it again; the caller's deadline is kept
 * (DEFAULT_RELAY_TIMEOUT_MS when none) and cancellation passes on; an unreachable coordinator is
 * COORDINATOR_NOT_AVAILABLE (retriable); a shard changing owner during the call ends it with
 * NOT_COORDINATOR at once.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { ClientCache } from '../../common/grpc/client-cache';
import { channelOptions } from '../../common/grpc/server';
import { fromGrpcError, TRAILER_ERROR_CODE } from '../../common/grpc/status';
import type {
  TransactionCoordinatorClient,
  TransactionCoordinatorHandlers,
} from '../../common/grpc/generated/tide/v1/TransactionCoordinator';
import type { ListTransactionsResponse } from '../../common/grpc/generated/tide/v1/ListTransactionsResponse';
import type { CoordinatorLocator } from '../../common/cluster/coordinator-locator';
import type { ShardOwners } from '../../common/cluster/coordinator-owners';
import { validateGroupId, type CoordinatorRecord } from '../../common/cluster/coordinator-shards';
import { forwardedMetadata, isForwarded } from '../../common/grpc/routing-headers';
import { transactionsProto } from '../../common/grpc/transactions-proto';
import { unary, type RpcEdge } from '../../common/grpc/unary';
import { DEFAULT_RELAY_TIMEOUT_MS } from './coordinator-forward';

export interface TransactionRelayDeps {
  owners: ShardOwners;
  locator: CoordinatorLocator;
  brokerId: number;
  logger: Logger;
  edge: RpcEdge;
  maxMessageBytes?: number;
  credentials?: grpc.ChannelCredentials;
}

type Invoke<Req, Res> = (
  client: TransactionCoordinatorClient,
  request: Req,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: grpc.requestCallback<Res>,
) => grpc.ClientUnaryCall;

export class TransactionRelay {
  private readonly clients = new ClientCache<TransactionCoordinatorClient>(
    (address) =>
      new (transactionsProto().TransactionCoordinator)(
        address,
        this.deps.credentials ?? grpc.credentials.createInsecure(),
        channelOptions(this.deps.maxMessageBytes),
      ),
  );
  private closed = false;

  constructor(private readonly deps: TransactionRelayDeps) {}

  service(): { definition: grpc.ServiceDefinition; handlers: TransactionCoordinatorHandlers } {
    const { edge, locator } = this.deps;
    const byTxn = <Req extends { transactional_id: string }>(req: Req) => ({
      key: validateGroupId(req.transactional_id, 'transactional_id'),
      what: 'transactional id',
    });
    const handlers: TransactionCoordinatorHandlers = {
      FindTransactionCoordinator: unary(edge, 'FindTransactionCoordinator', (req) =>
        locator.find(validateGroupId(req.transactional_id, 'transactional_id')),
      ),
      InitTransactions: this.relay('InitTransactions', byTxn, (c, r, m, o, cb) =>
        c.InitTransactions(r, m, o, cb),
      ),
      AddPartitionsToTxn: this.relay('AddPartitionsToTxn', byTxn, (c, r, m, o, cb) =>
        c.AddPartitionsToTxn(r, m, o, cb),
      ),
      AddOffsetsToTxn: this.relay('AddOffsetsToTxn', byTxn, (c, r, m, o, cb) =>
        c.AddOffsetsToTxn(r, m, o, cb),
      ),
      TxnOffsetCommit: this.relay(
        'TxnOffsetCommit',
        (req) => ({ key: validateGroupId(req.group_id), what: 'group' }),
        (c, r, m, o, cb) => c.TxnOffsetCommit(r, m, o, cb),
      ),
      EndTxn: this.relay('EndTxn', byTxn, (c, r, m, o, cb) => c.EndTxn(r, m, o, cb)),
      DescribeTransaction: this.relay('DescribeTransaction', byTxn, (c, r, m, o, cb) =>
        c.DescribeTransaction(r, m, o, cb),
      ),
      ListTransactions: unary(edge, 'ListTransactions', async (request, metadata, call) => {
        if (isForwarded(metadata)) throw this.forwardedTwice('ListTransactions');
        const lists = await Promise.all(
          this.deps.owners
            .liveInstances()
            .map((owner) =>
              this.callOwner<typeof request, ListTransactionsResponse>(
                owner,
                request,
                call,
                (c, r, m, o, cb) => c.ListTransactions(r, m, o, cb),
              ),
            ),
        );
        return {
          transactions: lists
            .flatMap((l) => l.transactions)
            .sort((a, b) => (a.transactional_id < b.transactional_id ? -1 : 1)),
        };
      }),
    };
    return { definition: transactionsProto().TransactionCoordinator.service, handlers };
  }

  close(): void {
    this.closed = true;
    this.clients.close();
  }

  private relay<Req, Res>(
    method: string,
    route: (request: Req) => { key: string; what: string },
    invoke: Invoke<Req, Res>,
  ): grpc.handleUnaryCall<Req, Res> {
    return unary<Req, Res>(this.deps.edge, method, async (request, metadata, call) => {
      if (isForwarded(metadata)) throw this.forwardedTwice(method);
      const { key, what } = route(request);
      const { owner, shard } = this.deps.owners.locate(key);
      return this.callOwner(owner, request, call, invoke, { key, what, shard });
    });
  }

  private callOwner<Req, Res>(
    owner: CoordinatorRecord,
    request: Req,
    call: grpc.ServerUnaryCall<unknown, unknown>,
    invoke: Invoke<Req, Res>,
    routed?: { key: string; what: string; shard: number },
  ): Promise<Res> {
    const callerDeadline = call.getDeadline();
    const deadline =
      callerDeadline instanceof Date || Number.isFinite(callerDeadline)
        ? callerDeadline
        : Date.now() + DEFAULT_RELAY_TIMEOUT_MS;
    let unsubscribe: (() => void) | undefined;
    return new Promise<Res>((resolve, reject) => {
      if (this.closed) {
        reject(new TideError('BROKER_NOT_AVAILABLE', 'the broker is stopping'));
        return;
      }
      const client = this.clients.get(`${owner.host}:${owner.port}`);
      const upstream = invoke(client, request, forwardedMetadata(), { deadline }, (err, res) =>
        err ? reject(this.relayedError(err, owner)) : resolve(res as Res),
      );
      call.once('cancelled', () => upstream.cancel());
      if (routed) {
        unsubscribe = this.deps.owners.onShardChange(routed.shard, () => {
          reject(
            new TideError(
              'NOT_COORDINATOR',
              `the coordinator of ${routed.what} ${routed.key} changed while the call ran (shard ${routed.shard} left ${owner.id}); find it again`,
            ),
          );
          upstream.cancel();
        });
      }
    }).finally(() => unsubscribe?.());
  }

  private relayedError(err: unknown, owner: CoordinatorRecord): TideError {
    const tideCoded = (err as Partial<grpc.ServiceError>).metadata?.get(TRAILER_ERROR_CODE).length;
    const error = fromGrpcError(err);
    if (tideCoded || error.code !== 'BROKER_NOT_AVAILABLE') return error;
    return new TideError(
      'COORDINATOR_NOT_AVAILABLE',
      `broker ${this.deps.brokerId} could not reach coordinator ${owner.id} at ${owner.host}:${owner.port} (${error.message}); it may be restarting or moving its shards`,
      { cause: error },
    );
  }

  private forwardedTwice(method: string): TideError {
    return new TideError(
      'NOT_COORDINATOR',
      `${method} reached broker ${this.deps.brokerId} already forwarded: brokers do not coordinate transactions and do not forward twice; find the coordinator again`,
    );
  }
}
