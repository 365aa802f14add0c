/**
 * Consumer group administration: list, describe (members, assignment, committed offsets and lag),
 * fetch and commit offsets, and reset offsets (also of a live group: its members are fenced and
 * pick up the new positions). Thin typed wrappers over the GroupCoordinator service; calls go to
 * the group's coordinator, found through any broker.
 */
import type { CommitOffsetsResponse } from '../../services/common/grpc/generated/tide/v1/CommitOffsetsResponse';
import type { DescribeGroupResponse } from '../../services/common/grpc/generated/tide/v1/DescribeGroupResponse';
import type { FetchOffsetsResponse } from '../../services/common/grpc/generated/tide/v1/FetchOffsetsResponse';
import type { ListGroupsResponse } from '../../services/common/grpc/generated/tide/v1/ListGroupsResponse';
import type { ResetOffsetsResponse } from '../../services/common/grpc/generated/tide/v1/ResetOffsetsResponse';
import type { DeleteGroupResponse } from '../../services/common/grpc/generated/tide/v1/DeleteGroupResponse';
import type { ResetTo } from '../../services/common/grpc/generated/tide/v1/ResetTo';
import type { TopicPartitions } from '../../services/common/grpc/generated/tide/v1/TopicPartitions';
import { TideError } from '../../services/common/errors';
import type { ResetTarget } from '../../services/common/reset-target';
import type { TopicPartition } from '../types';
import type { GroupCoordinatorClient } from '../../services/common/grpc/generated/tide/v1/GroupCoordinator';
import type { CoordinatorClient } from './coordinator-client';

export interface GroupListing {
  groupId: string;
  /** EMPTY, RECONCILING, STABLE (docs/consumer-groups.md). */
  state: string;
  members: number;
  protocol: string;
  coordinatorId: string;
}

export interface GroupMemberDescription {
  memberId: string;
  instanceId: string;
  clientId: string;
  clientHost: string;
  memberEpoch: number;
  topics: string[];
  /** What it holds now (revoking ones included), what it is giving up, what the assignor wants. */
  owned: TopicPartition[];
  revoking: TopicPartition[];
  target: TopicPartition[];
  connected: boolean;
  /** The member's user data (GroupConsumerOptions.userData); empty when it sent none. */
  userData: Buffer;
}

export interface GroupPartitionLag {
  topic: string;
  partition: number;
  /** -1: nothing committed. */
  committedOffset: number;
  /** The high watermark; -1 when unknown. */
  endOffset: number;
  /** -1 when unknown. */
  lag: number;
  /** Owner, '' when none. */
  memberId: string;
}

export interface GroupDescription {
  groupId: string;
  state: string;
  generation: number;
  assignor: string;
  protocol: string;
  coordinatorId: string;
  members: GroupMemberDescription[];
  partitions: GroupPartitionLag[];
}

export interface CommittedOffset extends TopicPartition {
  /** -1 when nothing is committed. */
  offset: number;
  metadata: string;
  commitTimestampMs: number;
}

/** Where ResetOffsets moves a group's offsets (services/common/reset-target.ts, shared with the coordinator). */
export type { ResetTarget };

export interface ResetOffsetsOptions {
  /** Every partition of these topics... */
  topics?: string[];
  /** ...and/or these partitions. */
  partitions?: TopicPartition[];
  /** Answer the plan, change nothing. */
  dryRun?: boolean;
}

export interface ResetPlanEntry extends TopicPartition {
  /** -1 when nothing was committed. */
  currentOffset: number;
  newOffset: number;
}

export interface ResetResult {
  plan: ResetPlanEntry[];
  applied: boolean;
  /** The generation the group's members were fenced to. */
  generation: number;
}

export function flatten(list: readonly TopicPartitions[]): TopicPartition[] {
  return list.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));
}

export function grouped(tps: readonly TopicPartition[]): { topic: string; partitions: number[] }[] {
  const byTopic = new Map<string, number[]>();
  for (const tp of tps) {
    let list = byTopic.get(tp.topic);
    if (!list) byTopic.set(tp.topic, (list = []));
    list.push(tp.partition);
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
}

const RESET_TO: Record<ResetTarget['to'], ResetTo> = {
  earliest: 'RESET_TO_EARLIEST',
  latest: 'RESET_TO_LATEST',
  timestamp: 'RESET_TO_TIMESTAMP',
  offset: 'RESET_TO_OFFSET',
  shift: 'RESET_TO_SHIFT',
};

export class GroupAdmin {
  constructor(private readonly coordinators: CoordinatorClient) {}

  /** Every group of every coordinator, sorted by id. */
  async listGroups(): Promise<GroupListing[]> {
    const client = this.coordinators;
    const list = (c: GroupCoordinatorClient) =>
      client.cluster.calls.call<GroupCoordinatorClient, ListGroupsResponse>(c, (g, o, cb) =>
        g.ListGroups({}, o, cb),
      );
    const { coordinators } = await client.describeCoordinators();
    const first = coordinators[0];
    const relayed = await client.relayed(first && `${first.host}:${first.port}`);
    // A broker asks every live coordinator itself and merges the lists.
    const lists = relayed
      ? [await client.cluster.withControlBroker((address) => list(client.brokerClient(address)))]
      : await Promise.all(coordinators.map((c) => list(client.client(`${c.host}:${c.port}`))));
    return lists
      .flatMap((l) => l.groups)
      .map((g) => ({
        groupId: g.group_id,
        state: g.state,
        members: g.members,
        protocol: g.protocol,
        coordinatorId: g.coordinator_id,
      }))
      .sort((a, b) => (a.groupId < b.groupId ? -1 : 1));
  }

  /** GROUP_ID_NOT_FOUND for a group without members and offsets. */
  async describeGroup(groupId: string): Promise<GroupDescription> {
    const r = await this.coordinators.call<DescribeGroupResponse>(groupId, (c, o, cb) =>
      c.DescribeGroup({ group_id: groupId }, o, cb),
    );
    return {
      groupId: r.group_id,
      state: r.state,
      generation: r.generation,
      assignor: r.assignor,
      protocol: r.protocol,
      coordinatorId: r.coordinator_id,
      members: r.members.map((m) => ({
        memberId: m.member_id,
        instanceId: m.instance_id,
        clientId: m.client_id,
        clientHost: m.client_host,
        memberEpoch: m.member_epoch,
        topics: m.topics,
        owned: flatten(m.owned),
        revoking: flatten(m.revoking),
        target: flatten(m.target),
        connected: m.connected,
        userData: Buffer.from(m.user_data ?? []),
      })),
      partitions: r.partitions.map((p) => ({
        topic: p.topic,
        partition: p.partition,
        committedOffset: p.committed_offset,
        endOffset: p.end_offset,
        lag: p.lag,
        memberId: p.member_id,
      })),
    };
  }

  /**
   * Committed offsets (every committed partition when `partitions` is empty); -1 = none.
   * `requireStable`: wait (retrying UNSTABLE_OFFSET_COMMIT) while a transaction that committed
   * offsets for one of the partitions has not completed, instead of answering the older offset.
   */
  async fetchOffsets(
    groupId: string,
    partitions: TopicPartition[] = [],
    options: { requireStable?: boolean } = {},
  ): Promise<CommittedOffset[]> {
    const r = await this.coordinators.call<FetchOffsetsResponse>(groupId, (c, o, cb) =>
      c.FetchOffsets(
        {
          group_id: groupId,
          partitions: grouped(partitions),
          require_stable: options.requireStable ?? false,
        },
        o,
        cb,
      ),
    );
    return r.offsets.map((x) => ({
      topic: x.topic,
      partition: x.partition,
      offset: x.offset,
      metadata: x.metadata,
      commitTimestampMs: x.commit_timestamp_ms,
    }));
  }

  /**
   * Commits offsets. Without `member` only for a group that has no members (an administrative
   * commit); members commit through their consumer.
   */
  async commitOffsets(
    groupId: string,
    offsets: (TopicPartition & { offset: number; metadata?: string })[],
    member: { memberId: string; memberEpoch: number } = { memberId: '', memberEpoch: 0 },
  ): Promise<void> {
    await this.coordinators.call<CommitOffsetsResponse>(groupId, (c, o, cb) =>
      c.CommitOffsets(
        {
          group_id: groupId,
          member_id: member.memberId,
          member_epoch: member.memberEpoch,
          offsets: offsets.map((x) => ({
            topic: x.topic,
            partition: x.partition,
            offset: x.offset,
            metadata: x.metadata ?? '',
          })),
        },
        o,
        cb,
      ),
    );
  }

  /**
   * Deletes a group without members (its committed offsets and record); answers how many
   * committed offsets it removed. NON_EMPTY_GROUP while it has members, GROUP_ID_NOT_FOUND when
   * there is no such group.
   */
  async deleteGroup(groupId: string): Promise<{ offsetsDeleted: number }> {
    const r = await this.coordinators.call<DeleteGroupResponse>(groupId, (c, o, cb) =>
      c.DeleteGroup({ group_id: groupId }, o, cb),
    );
    return { offsetsDeleted: r.offsets_deleted };
  }

  /**
   * Moves a group's committed offsets (earliest, latest, a timestamp, or an exact offset clamped
   * to what the partition holds). Works on a live group: its members are fenced and continue from
   * the new offsets. `dryRun` answers the plan only.
   */
  async resetOffsets(
    groupId: string,
    target: ResetTarget,
    options: ResetOffsetsOptions,
  ): Promise<ResetResult> {
    if (!options.topics?.length && !options.partitions?.length)
      throw new TideError('INVALID_REQUEST', 'name the topics (or partitions) whose offsets to reset');
    const r = await this.coordinators.call<ResetOffsetsResponse>(groupId, (c, o, cb) =>
      c.ResetOffsets(
        {
          group_id: groupId,
          topics: options.topics ?? [],
          partitions: grouped(options.partitions ?? []),
          to: RESET_TO[target.to],
          timestamp_ms: target.to === 'timestamp' ? target.timestampMs : 0,
          offset: target.to === 'offset' ? target.offset : 0,
          shift_by: target.to === 'shift' ? target.shiftBy : 0,
          dry_run: options.dryRun ?? false,
        },
        o,
        cb,
      ),
    );
    return {
      plan: r.plan.map((p) => ({
        topic: p.topic,
        partition: p.partition,
        currentOffset: p.current_offset,
        newOffset: p.new_offset,
      })),
      applied: r.applied,
      generation: r.generation,
    };
  }
}
