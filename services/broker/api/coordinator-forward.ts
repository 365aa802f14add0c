/**
 * The GroupCoordinator service as every broker serves it: a relay, so a client that reaches one
 * broker (one `kubectl port-forward`) can run consumer groups. FindCoordinator and
 * DescribeCoordinators are answered here from the metadata store; every other call goes to the
 * coordinator instance that owns the group (ShardOwners: the same shard keys FindCoordinator
 * reads), and its answer or error comes back as it is. ListGroups, which names no group, asks
 * every live coordinator and merges the lists. Membership streams are relayed both ways
 * (membership-relay.ts).
 *
 * Brokers never coordinate groups, so they relay without being asked (no routing header).
 * Relayed calls carry `tide-forwarded: 1`; a broker refuses a forwarded call (NOT_COORDINATOR)
 * instead of relaying it again, so a stale view cannot make a loop. Unary calls keep the
 * caller's deadline (or DEFAULT_RELAY_TIMEOUT_MS when it set none) and are cancelled with it. A
 * coordinator that cannot be reached from the broker answers COORDINATOR_NOT_AVAILABLE
 * (retriable): it is down or moving, and the client finds it again.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { ClientCache } from '../../common/grpc/client-cache';
import { channelOptions } from '../../common/grpc/server';
import { fromGrpcError, toGrpcStatus, TRAILER_ERROR_CODE } from '../../common/grpc/status';
import type {
  GroupCoordinatorClient,
  GroupCoordinatorHandlers,
} from '../../common/grpc/generated/tide/v1/GroupCoordinator';
import type { ListGroupsResponse } from '../../common/grpc/generated/tide/v1/ListGroupsResponse';
import { locatorMethods, type CoordinatorLocator } from '../../common/cluster/coordinator-locator';
import { coordinatorProto } from '../../common/grpc/coordinator-proto';
import type { ShardOwners } from '../../common/cluster/coordinator-owners';
import { validateGroupId, type CoordinatorRecord } from '../../common/cluster/coordinator-shards';
import { forwardedMetadata, isForwarded } from '../../common/grpc/routing-headers';
import { relayMembership } from './membership-relay';
import { unary, type RpcEdge } from '../../common/grpc/unary';

/** Deadline of a relayed unary call whose caller set none. */
export const DEFAULT_RELAY_TIMEOUT_MS = 30_000;

export interface CoordinatorRelayDeps {
  owners: ShardOwners;
  locator: CoordinatorLocator;
  brokerId: number;
  logger: Logger;
  /** Where each call's outcome is reported (logs, RPC metrics). */
  edge: RpcEdge;
  maxMessageBytes?: number;
  /** TLS to the coordinators (the broker's ServiceSecurity.channel); plain text by default. */
  credentials?: grpc.ChannelCredentials;
}

type Invoke<Req, Res> = (
  client: GroupCoordinatorClient,
  request: Req,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: grpc.requestCallback<Res>,
) => grpc.ClientUnaryCall;

export class CoordinatorRelay {
  private readonly clients = new ClientCache<GroupCoordinatorClient>(
    (address) =>
      new (coordinatorProto().GroupCoordinator)(
        address,
        this.deps.credentials ?? grpc.credentials.createInsecure(),
        channelOptions(this.deps.maxMessageBytes),
      ),
  );
  private readonly logger: Logger;
  private closed = false;

  constructor(private readonly deps: CoordinatorRelayDeps) {
    this.logger = deps.logger.child({ component: 'coordinator-relay' });
  }

  /** The service definition and handlers to register on the broker's server. */
  service(): { definition: grpc.ServiceDefinition; handlers: GroupCoordinatorHandlers } {
    const { edge } = this.deps;
    const handlers: GroupCoordinatorHandlers = {
      ...locatorMethods(this.deps.locator, edge),
      Membership: (call) => {
        if (isForwarded(call.metadata)) {
          call.on('error', () => undefined);
          call.emit('error', toGrpcStatus(this.forwardedTwice('Membership')));
          return;
        }
        relayMembership(
          {
            owners: this.deps.owners,
            connect: (owner) => ({ client: this.client(owner), metadata: forwardedMetadata() }),
            relayedError: (err, owner) => this.relayedError(err, owner),
            logger: this.logger,
          },
          call,
        );
      },
      CommitOffsets: this.relayUnary('CommitOffsets', (c, r, m, o, cb) => c.CommitOffsets(r, m, o, cb)),
      FetchOffsets: this.relayUnary('FetchOffsets', (c, r, m, o, cb) => c.FetchOffsets(r, m, o, cb)),
      DescribeGroup: this.relayUnary('DescribeGroup', (c, r, m, o, cb) => c.DescribeGroup(r, m, o, cb)),
      ResetOffsets: this.relayUnary('ResetOffsets', (c, r, m, o, cb) => c.ResetOffsets(r, m, o, cb)),
      DeleteGroup: this.relayUnary('DeleteGroup', (c, r, m, o, cb) => c.DeleteGroup(r, m, o, cb)),
      ListGroups: unary(edge, 'ListGroups', async (request, metadata, call) => {
        if (isForwarded(metadata)) throw this.forwardedTwice('ListGroups');
        const lists = await Promise.all(
          this.deps.owners
            .liveInstances()
            .map((owner) =>
              this.callOwner<typeof request, ListGroupsResponse>(owner, request, call, (c, r, m, o, cb) =>
                c.ListGroups(r, m, o, cb),
              ),
            ),
        );
        return { groups: lists.flatMap((l) => l.groups) };
      }),
    };
    return { definition: coordinatorProto().GroupCoordinator.service, handlers };
  }

  /** Closes the channels to coordinators (in-flight relayed calls fail). */
  close(): void {
    this.closed = true;
    this.clients.close();
  }

  private relayUnary<Req extends { group_id: string }, Res>(
    method: string,
    invoke: Invoke<Req, Res>,
  ): grpc.handleUnaryCall<Req, Res> {
    return unary<Req, Res>(this.deps.edge, method, async (request, metadata, call) => {
      if (isForwarded(metadata)) throw this.forwardedTwice(method);
      const groupId = validateGroupId(request.group_id);
      const { owner, shard } = this.deps.owners.locate(groupId);
      return this.callOwner(owner, request, call, invoke, { groupId, shard });
    });
  }

  /**
   * One unary call to a coordinator, with the caller's deadline and cancellation. With `group`, a
   * change of the shard's owner while the call runs (a hung coordinator's lease lapsing) ends it
   * with NOT_COORDINATOR at once, so the client asks the new owner instead of waiting out its deadline.
   */
  private callOwner<Req, Res>(
    owner: CoordinatorRecord,
    request: Req,
    call: grpc.ServerUnaryCall<unknown, unknown>,
    invoke: Invoke<Req, Res>,
    group?: { groupId: string; shard: number },
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
      if (group) {
        unsubscribe = this.deps.owners.onShardChange(group.shard, () => {
          reject(
            new TideError(
              'NOT_COORDINATOR',
              `the coordinator of group ${group.groupId} changed while the call ran (shard ${group.shard} left ${owner.id}); find it again`,
            ),
          );
          upstream.cancel();
        });
      }
    }).finally(() => unsubscribe?.());
  }

  private client(owner: CoordinatorRecord): GroupCoordinatorClient {
    if (this.closed) throw new TideError('BROKER_NOT_AVAILABLE', 'the broker is stopping');
    return this.clients.get(`${owner.host}:${owner.port}`);
  }

  /**
   * The coordinator's own errors (with Tide trailers) pass as they are; a transport failure
   * between this broker and the coordinator becomes COORDINATOR_NOT_AVAILABLE.
   */
  private relayedError(err: unknown, owner: CoordinatorRecord): TideError {
    const tideCoded = (err as Partial<grpc.ServiceError>).metadata?.get(TRAILER_ERROR_CODE).length;
    const error = fromGrpcError(err);
    if (tideCoded || error.code !== 'BROKER_NOT_AVAILABLE') return error;
    return new TideError(
      'COORDINATOR_NOT_AVAILABLE',
      `broker ${this.deps.brokerId} could not reach coordinator ${owner.id} at ${owner.host}:${owner.port} (${error.message}); it may be restarting or moving its groups`,
      { cause: error },
    );
  }

  private forwardedTwice(method: string): TideError {
    return new TideError(
      'NOT_COORDINATOR',
      `${method} reached broker ${this.deps.brokerId} already forwarded: brokers do not coordinate groups and do not forward twice; find the coordinator again`,
    );
  }
}
