/**
 * The GroupCoordinator service as every broker serves it: a relay, so a client that reaches one
 * broker (one `kubectl port-forward`) can run consumer groups. FindCoordinator and
 * DescribeCoordinators are answered here from the metadata store; every other call goes to the
 * coordinator instance that owns the group (ShardOwners: the same shard keys FindCoordinator
 * reads), and its answer or error comes back as it is. ListGroups, which names no group, asks
 * every live coordinator and merges the lists. Membership streams are relayed both ways
 * (membership-relay.ts).
 *
 * Brokers never coordinate groups, so they relay without being asked (no routing header). The
 * relay's rules (no second forward, deadlines, cancellation, unreachable coordinators, shards
 * changing owner mid-call) are ShardRelay's (shard-relay.ts), shared with the transaction relay.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../common/logger';
import { toGrpcStatus } from '../../common/grpc/status';
import type {
  GroupCoordinatorClient,
  GroupCoordinatorHandlers,
} from '../../common/grpc/generated/tide/v1/GroupCoordinator';
import type { ListGroupsResponse } from '../../common/grpc/generated/tide/v1/ListGroupsResponse';
import { locatorMethods, type CoordinatorLocator } from '../../common/cluster/coordinator-locator';
import { coordinatorProto } from '../../common/grpc/coordinator-proto';
import { forwardedMetadata, isForwarded } from '../../common/grpc/routing-headers';
import { relayMembership } from './membership-relay';
import { byGroup, ShardRelay, type ShardRelayDeps } from './shard-relay';

export interface CoordinatorRelayDeps extends ShardRelayDeps {
  locator: CoordinatorLocator;
  logger: Logger;
}

export class CoordinatorRelay {
  private readonly relay: ShardRelay<GroupCoordinatorClient>;
  private readonly logger: Logger;

  constructor(private readonly deps: CoordinatorRelayDeps) {
    this.logger = deps.logger.child({ component: 'coordinator-relay' });
    this.relay = new ShardRelay(deps, {
      newClient: (address, credentials, options) =>
        new (coordinatorProto().GroupCoordinator)(address, credentials, options),
      coordinates: 'groups',
      moves: 'groups',
    });
  }

  /** The service definition and handlers to register on the broker's server. */
  service(): { definition: grpc.ServiceDefinition; handlers: GroupCoordinatorHandlers } {
    const { relay } = this;
    const handlers: GroupCoordinatorHandlers = {
      ...locatorMethods(this.deps.locator, this.deps.edge),
      Membership: (call) => {
        if (isForwarded(call.metadata)) {
          call.on('error', () => undefined);
          call.emit('error', toGrpcStatus(relay.forwardedTwice('Membership')));
          return;
        }
        relayMembership(
          {
            owners: this.deps.owners,
            connect: (owner) => ({ client: relay.client(owner), metadata: forwardedMetadata() }),
            relayedError: (err, owner) => relay.relayedError(err, owner),
            logger: this.logger,
          },
          call,
        );
      },
      CommitOffsets: relay.routed('CommitOffsets', byGroup, (c, r, m, o, cb) => c.CommitOffsets(r, m, o, cb)),
      FetchOffsets: relay.routed('FetchOffsets', byGroup, (c, r, m, o, cb) => c.FetchOffsets(r, m, o, cb)),
      DescribeGroup: relay.routed('DescribeGroup', byGroup, (c, r, m, o, cb) => c.DescribeGroup(r, m, o, cb)),
      ResetOffsets: relay.routed('ResetOffsets', byGroup, (c, r, m, o, cb) => c.ResetOffsets(r, m, o, cb)),
      DeleteGroup: relay.routed('DeleteGroup', byGroup, (c, r, m, o, cb) => c.DeleteGroup(r, m, o, cb)),
      ListGroups: relay.everyOwner(
        'ListGroups',
        (c, r, m, o, cb) => c.ListGroups(r, m, o, cb),
        (lists: ListGroupsResponse[]) => ({ groups: lists.flatMap((l) => l.groups) }),
      ),
    };
    return { definition: coordinatorProto().GroupCoordinator.service, handlers };
  }

  /** Closes the channels to coordinators (in-flight relayed calls fail). */
  close(): void {
    this.relay.close();
  }
}
