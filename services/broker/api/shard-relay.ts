/**
 * The relay a broker runs for a coordinator service (GroupCoordinator in coordinator-forward.ts,
 * TransactionCoordinator in txn-forward.ts): unary calls go to the coordinator instance that owns
 * the shard of the call's key (ShardOwners), or to every live instance for listings, and the
 * answer or error comes back as it is.
 *
 * The rules both relays keep: relayed calls carry `tide-forwarded: 1`, and a broker refuses a
 * forwarded call (NOT_COORDINATOR) instead of relaying it again, so a stale view cannot make a
 * loop. A relayed call keeps the caller's deadline (DEFAULT_RELAY_TIMEOUT_MS when it set none) and
 * is cancelled with it. A coordinator that cannot be reached from the broker answers
 * COORDINATOR_NOT_AVAILABLE (retriable): it is down or moving, and the client finds it again. A
 * shard changing owner while a routed call runs ends the call with NOT_COORDINATOR at once.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
import { ClientCache } from '../../common/grpc/client-cache';
import { channelOptions } from '../../common/grpc/server';
import { fromGrpcError, TRAILER_ERROR_CODE } from '../../common/grpc/status';
import type { ShardOwners } from '../../common/cluster/coordinator-owners';
import { validateGroupId, type CoordinatorRecord } from '../../common/cluster/coordinator-shards';
import { forwardedMetadata, isForwarded } from '../../common/grpc/routing-headers';
import { unary, type RpcEdge } from '../../common/grpc/unary';

/** Deadline of a relayed unary call whose caller set none. */
export const DEFAULT_RELAY_TIMEOUT_MS = 30_000;

export interface ShardRelayDeps {
  owners: ShardOwners;
  brokerId: number;
  /** Where each call's outcome is reported (logs, RPC metrics). */
  edge: RpcEdge;
  maxMessageBytes?: number;
  /** TLS to the coordinators (the broker's ServiceSecurity.channel); plain text by default. */
  credentials?: grpc.ChannelCredentials;
}

/** What differs between the relayed services. */
export interface ShardRelayService<Client> {
  /** A client of the coordinator service at `address`. */
  newClient: (address: string, credentials: grpc.ChannelCredentials, options: grpc.ChannelOptions) => Client;
  /** What the coordinators coordinate, as refusals name it ('groups'). */
  coordinates: string;
  /** What a coordinator moves between instances, as the unreachable error names it ('shards'). */
  moves: string;
}

/** One unary call of the coordinator service on `client`. */
export type RelayInvoke<Client, Req, Res> = (
  client: Client,
  request: Req,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: grpc.requestCallback<Res>,
) => grpc.ClientUnaryCall;

/** Which key routes a call, and what the key names ('group', 'transactional id') in errors. */
export interface RelayRoute {
  key: string;
  what: string;
}

/** Routes a call by its consumer group (group calls, and TxnOffsetCommit). */
export const byGroup = (request: { group_id: string }): RelayRoute => ({
  key: validateGroupId(request.group_id),
  what: 'group',
});

export class ShardRelay<Client extends { close(): void }> {
  private readonly clients: ClientCache<Client>;
  private closed = false;

  constructor(
    private readonly deps: ShardRelayDeps,
    private readonly relayed: ShardRelayService<Client>,
  ) {
    this.clients = new ClientCache<Client>((address) =>
      relayed.newClient(
        address,
        deps.credentials ?? grpc.credentials.createInsecure(),
        channelOptions(deps.maxMessageBytes),
      ),
    );
  }

  /** A handler that relays `method` to the owner of the shard of the key `route` picks. */
  routed<Req, Res>(
    method: string,
    route: (request: Req) => RelayRoute,
    invoke: RelayInvoke<Client, Req, Res>,
  ): grpc.handleUnaryCall<Req, Res> {
    return unary<Req, Res>(this.deps.edge, method, async (request, metadata, call) => {
      if (isForwarded(metadata)) throw this.forwardedTwice(method);
      const routed = route(request);
      const { owner, shard } = this.deps.owners.locate(routed.key);
      return this.callOwner(owner, request, call, invoke, { ...routed, shard });
    });
  }

  /** A handler that asks every live coordinator instance and merges their answers. */
  everyOwner<Req, Res, Answer>(
    method: string,
    invoke: RelayInvoke<Client, Req, Answer>,
    merge: (answers: Answer[]) => Res,
  ): grpc.handleUnaryCall<Req, Res> {
    return unary<Req, Res>(this.deps.edge, method, async (request, metadata, call) => {
      if (isForwarded(metadata)) throw this.forwardedTwice(method);
      const answers = await Promise.all(
        this.deps.owners.liveInstances().map((owner) => this.callOwner(owner, request, call, invoke)),
      );
      return merge(answers);
    });
  }

  /** The client of `owner` (BROKER_NOT_AVAILABLE once the relay is closed). */
  client(owner: CoordinatorRecord): Client {
    if (this.closed) throw new TideError('BROKER_NOT_AVAILABLE', 'the broker is stopping');
    return this.clients.get(`${owner.host}:${owner.port}`);
  }

  /**
   * The coordinator's own errors (with Tide trailers) pass as they are; a transport failure
   * between this broker and the coordinator becomes COORDINATOR_NOT_AVAILABLE.
   */
  relayedError(err: unknown, owner: CoordinatorRecord): TideError {
    const tideCoded = (err as Partial<grpc.ServiceError>).metadata?.get(TRAILER_ERROR_CODE).length;
    const error = fromGrpcError(err);
    if (tideCoded || error.code !== 'BROKER_NOT_AVAILABLE') return error;
    return new TideError(
      'COORDINATOR_NOT_AVAILABLE',
      `broker ${this.deps.brokerId} could not reach coordinator ${owner.id} at ${owner.host}:${owner.port} (${error.message}); it may be restarting or moving its ${this.relayed.moves}`,
      { cause: error },
    );
  }

  /** The refusal of a call that reached this broker already forwarded. */
  forwardedTwice(method: string): TideError {
    return new TideError(
      'NOT_COORDINATOR',
      `${method} reached broker ${this.deps.brokerId} already forwarded: brokers do not coordinate ${this.relayed.coordinates} and do not forward twice; find the coordinator again`,
    );
  }

  /** Closes the channels to coordinators (in-flight relayed calls fail). */
  close(): void {
    this.closed = true;
    this.clients.close();
  }

  /**
   * One unary call to a coordinator, with the caller's deadline and cancellation. With `routed`, a
   * change of the shard's owner while the call runs (a hung coordinator's lease lapsing) ends it
   * with NOT_COORDINATOR at once, so the client asks the new owner instead of waiting out its deadline.
   */
  private callOwner<Req, Res>(
    owner: CoordinatorRecord,
    request: Req,
    call: grpc.ServerUnaryCall<unknown, unknown>,
    invoke: RelayInvoke<Client, Req, Res>,
    routed?: RelayRoute & { shard: number },
  ): Promise<Res> {
    const callerDeadline = call.getDeadline();
    const deadline =
      callerDeadline instanceof Date || Number.isFinite(callerDeadline)
        ? callerDeadline
        : Date.now() + DEFAULT_RELAY_TIMEOUT_MS;
    let unsubscribe: (() => void) | undefined;
    return new Promise<Res>((resolve, reject) => {
      const upstream = invoke(this.client(owner), request, forwardedMetadata(), { deadline }, (err, res) =>
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
}
