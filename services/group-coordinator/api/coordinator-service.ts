/**
 * gRPC handlers of `tide.v1.GroupCoordinator` on a coordinator instance: validate the request, call
 * the coordinator, map errors to statuses at this edge. No group logic lives here.
 */
import type * as grpc from '@grpc/grpc-js';
import { TideError, toTideError } from '../../common/errors';
import { echo } from '../../common/echo';
import type { Logger } from '../../common/logger';
import { toGrpcStatus, toWireError } from '../../common/grpc/status';
import type { GroupCoordinatorHandlers } from '../../common/grpc/generated/tide/v1/GroupCoordinator';
import type { JoinGroup } from '../../common/grpc/generated/tide/v1/JoinGroup';
import type { MemberRequest } from '../../common/grpc/generated/tide/v1/MemberRequest';
import type { MemberResponse__Input } from '../../common/grpc/generated/tide/v1/MemberResponse';
import type { ResetOffsetsRequest } from '../../common/grpc/generated/tide/v1/ResetOffsetsRequest';
import { FORWARDED_FOR_HEADER } from '../../common/grpc/routing-headers';
import { unary } from '../../common/grpc/unary';
import { validateTopicName } from '../../common/cluster/topic-name';
import type { ResetTarget } from '../../common/reset-target';
import type { Coordinator } from '../coordinator';
import {
  DEFAULT_REBALANCE_TIMEOUT_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
  MAX_REBALANCE_TIMEOUT_MS,
  MAX_SESSION_TIMEOUT_MS,
  MIN_SESSION_TIMEOUT_MS,
  MAX_USER_DATA_BYTES,
  type JoinRequest,
} from '../group';
import type { GroupRuntime, MemberChannel } from '../group-runtime';
import { fromWire, toWire, tpKey } from '../partitions';
import { validateGroupId } from '../../common/cluster/coordinator-shards';
import { locatorMethods, type CoordinatorLocator } from '../../common/cluster/coordinator-locator';

export interface CoordinatorServiceDeps {
  coordinator: Coordinator;
  locator: CoordinatorLocator;
  selfId: string;
  /** Partition count of a data topic; undefined when it does not exist. */
  partitionCount: (topic: string) => number | undefined;
  logger: Logger;
  /** Records each unary call's latency and result (tide_rpc_duration_seconds) when metrics are on. */
  observeRpc?: (method: string, code: string, seconds: number) => void;
}

function invalid(message: string): TideError {
  return new TideError('INVALID_REQUEST', message);
}

/** Validates a JoinGroup; every problem names its field. */
export function parseJoin(
  join: JoinGroup | null | undefined,
  clientHost: string,
): { groupId: string; request: JoinRequest } {
  if (!join) throw invalid('the first message of a membership stream must be join');
  const groupId = validateGroupId(join.group_id, 'join.group_id');
  if (join.topics.length === 0) throw invalid('join.topics is empty: subscribe to at least one topic');
  for (const topic of join.topics) {
    try {
      validateTopicName(topic);
    } catch (err) {
      throw invalid(`join.topics: ${(err as Error).message}`);
    }
  }
  const session = join.session_timeout_ms || DEFAULT_SESSION_TIMEOUT_MS;
  if (session < MIN_SESSION_TIMEOUT_MS || session > MAX_SESSION_TIMEOUT_MS)
    throw invalid(
      `join.session_timeout_ms must be in ${MIN_SESSION_TIMEOUT_MS}..${MAX_SESSION_TIMEOUT_MS} (got ${session})`,
    );
  const rebalance = join.rebalance_timeout_ms || DEFAULT_REBALANCE_TIMEOUT_MS;
  if (rebalance < 1 || rebalance > MAX_REBALANCE_TIMEOUT_MS)
    throw invalid(`join.rebalance_timeout_ms must be in 1..${MAX_REBALANCE_TIMEOUT_MS} (got ${rebalance})`);
  if (join.member_epoch < 0) throw invalid(`join.member_epoch must be >= 0 (got ${join.member_epoch})`);
  if (!join.member_id && join.member_epoch > 0)
    throw invalid('join.member_epoch is set without join.member_id: a new member joins with epoch 0');
  if (join.instance_id && !/^[\x21-\x7e]{1,255}$/.test(join.instance_id))
    throw invalid(
      `join.instance_id ${JSON.stringify(join.instance_id)} must be 1 to 255 printable ASCII characters`,
    );
  return {
    groupId,
    request: {
      memberId: join.member_id,
      memberEpoch: join.member_epoch,
      instanceId: join.instance_id,
      clientId: join.client_id,
      clientHost,
      topics: [...new Set(join.topics)],
      sessionTimeoutMs: session,
      rebalanceTimeoutMs: rebalance,
      assignor: join.assignor,
      owned: fromWire('join.owned', join.owned),
      userData: parseUserData(join.user_data, 'join.user_data'),
    },
  };
}

function parseUserData(data: Buffer | undefined, field: string): Buffer {
  const bytes = data ?? Buffer.alloc(0);
  if (bytes.length > MAX_USER_DATA_BYTES)
    throw invalid(`${field} has ${bytes.length} bytes; at most ${MAX_USER_DATA_BYTES} are allowed`);
  return Buffer.from(bytes);
}

function parseReset(req: ResetOffsetsRequest): ResetTarget {
  switch (req.to) {
    case 'RESET_TO_EARLIEST':
      return { to: 'earliest' };
    case 'RESET_TO_LATEST':
      return { to: 'latest' };
    case 'RESET_TO_TIMESTAMP':
      if (req.timestamp_ms < 0) throw invalid('timestamp_ms must be >= 0');
      return { to: 'timestamp', timestampMs: req.timestamp_ms };
    case 'RESET_TO_OFFSET':
      if (req.offset < 0) throw invalid('offset must be >= 0');
      return { to: 'offset', offset: req.offset };
    case 'RESET_TO_SHIFT':
      return { to: 'shift', shiftBy: Number(req.shift_by) };
    default:
      throw invalid(
        'to is required: RESET_TO_EARLIEST, RESET_TO_LATEST, RESET_TO_TIMESTAMP, RESET_TO_OFFSET or RESET_TO_SHIFT',
      );
  }
}

/** The member's address: its own, or (relayed by a broker) the one the broker passed on. */
function clientHost(call: grpc.ServerDuplexStream<MemberRequest, MemberResponse__Input>): string {
  const relayedFor = call.metadata.get(FORWARDED_FOR_HEADER)[0];
  return typeof relayedFor === 'string' && relayedFor ? relayedFor : call.getPeer();
}

/** The membership stream of one member. */
function membership(
  deps: CoordinatorServiceDeps,
  call: grpc.ServerDuplexStream<MemberRequest, MemberResponse__Input>,
): void {
  const logger = deps.logger;
  let member: { runtime: GroupRuntime; memberId: string } | undefined;
  let ended = false;
  const channel: MemberChannel = {
    send: (message) => {
      if (!ended && !call.destroyed) call.write(message);
    },
    fail: (error) => {
      if (ended) return;
      ended = true;
      member = undefined;
      if (!call.destroyed) call.emit('error', toGrpcStatus(error));
    },
  };
  const closed = () => {
    if (member) member.runtime.streamClosed(member.memberId, channel);
    member = undefined;
    ended = true;
  };
  const requireMember = () => {
    if (!member) throw invalid('send join first: this stream has no member yet');
    return member;
  };
  call.on('data', (request: MemberRequest) => {
    if (ended) return;
    try {
      switch (request.kind) {
        case 'join': {
          const { groupId, request: join } = parseJoin(request.join, clientHost(call));
          if (member && member.runtime.groupId !== groupId)
            throw invalid(
              `this stream is a member of group ${member.runtime.groupId}; open another stream for ${groupId}`,
            );
          const runtime = deps.coordinator.runtime(groupId, true);
          const memberId = runtime.join(member ? { ...join, memberId: member.memberId } : join, channel);
          member = { runtime, memberId };
          break;
        }
        case 'heartbeat': {
          const m = requireMember();
          m.runtime.heartbeat(m.memberId, request.heartbeat!.member_epoch, channel);
          break;
        }
        case 'revoked': {
          const m = requireMember();
          m.runtime.revoked(m.memberId, fromWire('revoked.partitions', request.revoked!.partitions));
          break;
        }
        case 'leave': {
          const m = requireMember();
          member = undefined;
          ended = true;
          m.runtime.leave(m.memberId, request.leave!.temporary);
          if (!call.destroyed) call.end();
          break;
        }
        case 'user_data': {
          const m = requireMember();
          m.runtime.userData(m.memberId, parseUserData(request.user_data!.user_data, 'user_data.user_data'));
          break;
        }
        case 'assignment_result': {
          const m = requireMember();
          const r = request.assignment_result!;
          try {
            m.runtime.assignmentComputed(m.memberId, {
              generation: r.generation,
              targets: r.targets.map((t) => ({
                memberId: t.member_id,
                partitions: fromWire('assignment_result.targets.partitions', t.partitions),
                userData: parseUserData(t.user_data, 'assignment_result.targets.user_data'),
              })),
            });
          } catch (err) {
            // A wrong result is the leader's bug, not the member's: it stays, and hears why.
            const error = toTideError(err);
            if (error.code !== 'INVALID_REQUEST') throw err;
            logger.warn({ msg: error.message }, 'client-side assignment rejected');
            channel.send({ error: toWireError(error) });
          }
          break;
        }
        default:
          throw invalid(
            'a MemberRequest needs one of join, heartbeat, revoked, leave, user_data, assignment_result',
          );
      }
    } catch (err) {
      const error = toTideError(err);
      if (error.code === 'UNKNOWN') logger.error({ err }, 'membership request failed unexpectedly');
      else logger.debug({ code: error.code, msg: error.message }, 'membership request rejected');
      const current = member;
      channel.fail(error);
      if (current) current.runtime.streamClosed(current.memberId, channel);
    }
  });
  call.on('end', () => {
    closed();
    if (!call.destroyed) call.end();
  });
  call.on('cancelled', closed);
  call.on('error', closed);
}

export function coordinatorHandlers(deps: CoordinatorServiceDeps): GroupCoordinatorHandlers {
  const { coordinator, logger } = deps;
  const edge = { logger, observeRpc: deps.observeRpc };
  return {
    ...locatorMethods(deps.locator, edge),
    Membership: (call) => membership(deps, call),
    CommitOffsets: unary(edge, 'CommitOffsets', async (req) => {
      const groupId = validateGroupId(req.group_id);
      if (req.offsets.length === 0) throw invalid('offsets is empty');
      const entries = req.offsets.map((o, i) => {
        if (!o.topic) throw invalid(`offsets[${i}].topic is required`);
        if (o.partition < 0) throw invalid(`offsets[${i}].partition must be >= 0`);
        if (o.offset < 0) throw invalid(`offsets[${i}].offset must be >= 0 (the next offset to consume)`);
        return { key: tpKey(o.topic, o.partition), offset: o.offset, metadata: o.metadata };
      });
      await coordinator.runtime(groupId, true).commit(req.member_id, req.member_epoch, entries);
      return {};
    }),
    FetchOffsets: unary(edge, 'FetchOffsets', async (req) => {
      const groupId = validateGroupId(req.group_id);
      const offsets = coordinator.fetchOffsets(
        groupId,
        fromWire('partitions', req.partitions),
        req.require_stable,
      );
      return {
        offsets: offsets.map(({ key, committed }) => {
          const at = key.lastIndexOf('\u0000');
          return {
            topic: key.slice(0, at),
            partition: Number(key.slice(at + 1)),
            offset: committed?.offset ?? -1,
            metadata: committed?.metadata ?? '',
            commit_timestamp_ms: committed?.commitTimestampMs ?? 0,
          };
        }),
      };
    }),
    ListGroups: unary(edge, 'ListGroups', async () => ({
      groups: coordinator.listGroups().map((g) => ({
        group_id: g.groupId,
        state: g.state,
        members: g.members,
        protocol: g.protocol,
        coordinator_id: deps.selfId,
      })),
    })),
    DescribeGroup: unary(edge, 'DescribeGroup', async (req) => {
      const groupId = validateGroupId(req.group_id);
      const rt = coordinator.runtime(groupId, false);
      const partitions = await coordinator.lag(groupId);
      return {
        group_id: groupId,
        state: rt.group.state,
        generation: rt.group.generation,
        assignor: rt.group.assignor,
        protocol: rt.group.protocol,
        coordinator_id: deps.selfId,
        members: rt.group.describeMembers().map((m) => ({
          member_id: m.memberId,
          instance_id: m.instanceId,
          client_id: m.clientId,
          client_host: m.clientHost,
          member_epoch: m.epoch,
          topics: m.topics,
          owned: toWire(m.owned),
          revoking: toWire(m.revoking),
          target: toWire(m.target),
          connected: m.connected,
          user_data: m.userData,
        })),
        partitions: partitions.map((p) => ({
          topic: p.topic,
          partition: p.partition,
          committed_offset: p.committedOffset,
          end_offset: p.endOffset,
          lag: p.lag,
          member_id: p.memberId,
        })),
      };
    }),
    ResetOffsets: unary(edge, 'ResetOffsets', async (req) => {
      const groupId = validateGroupId(req.group_id);
      const spec = parseReset(req);
      const keys = new Set(fromWire('partitions', req.partitions));
      for (const topic of req.topics) {
        const count = deps.partitionCount(topic);
        if (count === undefined)
          throw new TideError('UNKNOWN_TOPIC', `topic ${echo(topic)} does not exist`, { context: { topic } });
        for (let p = 0; p < count; p++) keys.add(tpKey(topic, p));
      }
      if (keys.size === 0) throw invalid('name the topics (or partitions) whose offsets to reset');
      const result = await coordinator.resetOffsets(groupId, [...keys], spec, req.dry_run);
      return {
        plan: result.plan.map((p) => ({
          topic: p.topic,
          partition: p.partition,
          current_offset: p.currentOffset,
          new_offset: p.newOffset,
        })),
        applied: result.applied,
        generation: result.generation,
      };
    }),
    DeleteGroup: unary(edge, 'DeleteGroup', async (req) => {
      const groupId = validateGroupId(req.group_id);
      const { offsetsDeleted } = await coordinator.deleteGroup(groupId);
      return { offsets_deleted: offsetsDeleted };
    }),
  };
}
