/**
 * A membership stream relayed through a broker: the member's stream (downstream) is joined to a
 * stream the broker opens to the coordinator that owns the group (upstream), and every message is
 * passed on as it is, both ways. The first message must be the join, which names the group.
 *
 * Endings travel both ways: the member half-closing (after a leave) half-closes upstream; the
 * member cancelling or disconnecting cancels upstream; the coordinator ending the stream ends
 * the member's, with its status and Tide trailers kept (NOT_COORDINATOR, FENCED_MEMBER_EPOCH...).
 * When the owner of the group's shard changes, or the coordinator cannot be reached, the member's
 * stream ends with NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE (retriable): the member finds the
 * coordinator again and rejoins with its member id and epoch, exactly as after a coordinator move.
 */
import type * as grpc from '@grpc/grpc-js';
import { TideError, toTideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { toGrpcStatus } from '../../common/grpc/status';
import type { GroupCoordinatorClient } from '../../common/grpc/generated/tide/v1/GroupCoordinator';
import type { MemberRequest } from '../../common/grpc/generated/tide/v1/MemberRequest';
import type { MemberResponse } from '../../common/grpc/generated/tide/v1/MemberResponse';
import type { MemberResponse__Input } from '../../common/grpc/generated/tide/v1/MemberResponse';
import type { CoordinatorRecord } from '../../common/cluster/coordinator-shards';
import { validateGroupId } from '../../common/cluster/coordinator-shards';
import type { ShardOwners } from '../../common/cluster/coordinator-owners';
import { FORWARDED_FOR_HEADER } from '../../common/grpc/routing-headers';

export interface MembershipRelayDeps {
  owners: ShardOwners;
  /** The coordinator's client, and the metadata that marks a call as forwarded. */
  connect: (owner: CoordinatorRecord) => { client: GroupCoordinatorClient; metadata: grpc.Metadata };
  /** An upstream failure as the member should see it. */
  relayedError: (err: unknown, owner: CoordinatorRecord) => TideError;
  logger: Logger;
}

/** Serves one membership stream by relaying it to the group's coordinator. */
export function relayMembership(
  deps: MembershipRelayDeps,
  call: grpc.ServerDuplexStream<MemberRequest, MemberResponse__Input>,
): void {
  let upstream: grpc.ClientDuplexStream<MemberRequest, MemberResponse> | undefined;
  let finished = false;
  let unsubscribe: (() => void) | undefined;

  const finish = (): grpc.ClientDuplexStream<MemberRequest, MemberResponse> | undefined => {
    finished = true;
    unsubscribe?.();
    unsubscribe = undefined;
    const up = upstream;
    upstream = undefined;
    return up;
  };
  const fail = (error: TideError): void => {
    if (finished) return;
    finish()?.cancel();
    deps.logger.debug({ code: error.code, msg: error.message }, 'relayed membership stream failed');
    if (!call.destroyed) call.emit('error', toGrpcStatus(error));
  };

  const open = (first: MemberRequest): void => {
    if (first.kind !== 'join' || !first.join)
      throw new TideError('INVALID_REQUEST', 'the first message of a membership stream must be join');
    const groupId = validateGroupId(first.join.group_id, 'join.group_id');
    const { shard, owner } = deps.owners.locate(groupId);
    const { client, metadata } = deps.connect(owner);
    metadata.set(FORWARDED_FOR_HEADER, call.getPeer());
    const up = client.Membership(metadata);
    upstream = up;
    unsubscribe = deps.owners.onShardChange(shard, () =>
      fail(
        new TideError(
          'NOT_COORDINATOR',
          `the coordinator of group ${groupId} changed (shard ${shard} left ${owner.id}); find it again and rejoin`,
        ),
      ),
    );
    up.on('data', (response: MemberResponse) => {
      if (upstream === up && !call.destroyed) call.write(response);
    });
    up.on('error', (err: unknown) => {
      if (upstream === up) fail(deps.relayedError(err, owner));
    });
    up.on('end', () => {
      if (upstream !== up) return;
      finish();
      if (!call.destroyed) call.end();
    });
    up.write(first);
  };

  call.on('data', (request: MemberRequest) => {
    if (finished) return;
    if (upstream) {
      upstream.write(request);
      return;
    }
    try {
      open(request);
    } catch (err) {
      fail(toTideError(err));
    }
  });
  // The member half-closed (it left): let the coordinator see the same.
  call.on('end', () => {
    if (upstream) upstream.end();
    else if (!finished) {
      finish();
      if (!call.destroyed) call.end();
    }
  });
  call.on('cancelled', () => finish()?.cancel());
  call.on('error', () => finish()?.cancel());
}
