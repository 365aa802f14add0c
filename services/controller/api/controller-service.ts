/**
 * gRPC handlers of `tide.v1.Controller` (AlterPartition, ControlledShutdown, CreateInternalTopic,
 * ReportLeaderUnreachable, ReportReplicaOffline): validate the request
 * shape, call the controller, map errors at the edge. A standby answers NOT_CONTROLLER (the
 * controller's operations check leadership themselves).
 */
import type { ControllerHandlers } from '../../common/grpc/generated/tide/v1/Controller';
import type { PartitionInfo__Input } from '../../common/grpc/generated/tide/v1/PartitionInfo';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { unary } from '../../common/grpc/unary';
import type { AlterPartitionProposal } from '../partition-leadership';
import type { PartitionView } from '../../common/cluster/topic-watcher';
import type { InternalTopicCreator } from '../../common/cluster/admin-operations';

/** What the Controller service needs from the controller node. */
export interface ControllerOperations extends InternalTopicCreator {
  alterPartition(topic: string, partition: number, proposal: AlterPartitionProposal): Promise<PartitionView>;
  controlledShutdown(brokerId: number): Promise<{ remaining: { topic: string; partition: number }[] }>;
  reportLeaderUnreachable(brokerId: number, leaderId: number, forMs: number): Promise<void>;
  reportReplicaOffline(brokerId: number, topic: string, partition: number): Promise<PartitionView>;
}

export function toPartitionInfo(view: PartitionView, live?: ReadonlySet<number>): PartitionInfo__Input {
  return {
    partition: view.partition,
    leader: view.leader,
    leader_epoch: view.leaderEpoch,
    partition_epoch: view.partitionEpoch,
    replicas: [...view.replicas],
    isr: [...view.isr],
    offline_replicas: live ? view.replicas.filter((id) => !live.has(id)) : [],
  };
}

function requireBrokerId(id: number): number {
  if (!Number.isInteger(id) || id < 0)
    throw new TideError('INVALID_REQUEST', `broker_id ${id} is not a broker id`);
  return id;
}

export function controllerHandlers(ops: ControllerOperations, logger: Logger): ControllerHandlers {
  return {
    AlterPartition: unary(logger, 'AlterPartition', async (req) => {
      if (!req.topic) throw new TideError('INVALID_REQUEST', 'topic is required');
      if (req.partition < 0) throw new TideError('INVALID_REQUEST', `partition ${req.partition} is negative`);
      const view = await ops.alterPartition(req.topic, req.partition, {
        brokerId: requireBrokerId(req.broker_id),
        leaderEpoch: req.leader_epoch,
        partitionEpoch: req.partition_epoch,
        newIsr: req.new_isr,
      });
      return { partition: toPartitionInfo(view) };
    }),
    ControlledShutdown: unary(logger, 'ControlledShutdown', async (req) => {
      const { remaining } = await ops.controlledShutdown(requireBrokerId(req.broker_id));
      return {
        remaining,
        remaining_partitions: remaining.map((p) => `${p.topic}-${p.partition}`),
      };
    }),
    ReportLeaderUnreachable: unary(logger, 'ReportLeaderUnreachable', async (req) => {
      await ops.reportLeaderUnreachable(
        requireBrokerId(req.broker_id),
        requireBrokerId(req.leader_id),
        Number(req.unreachable_for_ms),
      );
      return {};
    }),
    ReportReplicaOffline: unary(logger, 'ReportReplicaOffline', async (req) => {
      if (!req.topic) throw new TideError('INVALID_REQUEST', 'topic is required');
      if (req.partition < 0) throw new TideError('INVALID_REQUEST', `partition ${req.partition} is negative`);
      const view = await ops.reportReplicaOffline(requireBrokerId(req.broker_id), req.topic, req.partition);
      return { partition: toPartitionInfo(view) };
    }),
    CreateInternalTopic: unary(logger, 'CreateInternalTopic', async (req) => {
      if (!req.name) throw new TideError('INVALID_REQUEST', 'name (the topic) is required');
      const topic = await ops.createInternalTopic({
        name: req.name,
        partitions: req.partitions,
        replicationFactor: req.replication_factor,
        configs: req.configs,
        validateOnly: false,
      });
      return { topic };
    }),
  };
}
