/**
 * Admin handlers. Topic metadata belongs to the controller module; the broker hands requests to
 * it through `TopicAdmin` and adds what only it knows: per-partition offsets and sizes. The one
 * call a partition's leader serves itself is DeleteRecords (delete-records.ts).
 */
import type { CreateTopicRequest } from '../../common/grpc/generated/tide/v1/CreateTopicRequest';
import type { AlterConfigsRequest } from '../../common/grpc/generated/tide/v1/AlterConfigsRequest';
import type { PartitionStatus__Input } from '../../common/grpc/generated/tide/v1/PartitionStatus';
import type { AdminHandlersWithoutAcls } from '../../common/security/auth/acl-admin-service';
import type { Logger } from '../../common/logger';
import { TideError } from '../../common/errors';
import type { TopicAdmin } from '../../common/cluster/admin-operations';
import type { MetadataView } from './registry';
import type { PartitionRegistry } from '../partition/partition-registry';
import { unary, type RpcEdge } from '../../common/grpc/unary';
import type { ElasticAdmin } from '../../common/cluster/elastic-operations';
import { elasticHandlers } from '../../common/cluster/elastic-handlers';
import { deleteRecordsRouted } from './delete-records';
import type { LeaderForwarder } from './forward';

export type { CreateTopicSpec, TopicAdmin } from '../../common/cluster/admin-operations';

export interface AdminDeps {
  topics: TopicAdmin;
  /** Adding partitions, moves, decommissions (the controller); absent: answered INVALID_REQUEST. */
  elastic?: ElasticAdmin;
  partitions: PartitionRegistry;
  metadata: MetadataView;
  logger: Logger;
  /** Where RPC outcomes are reported (logger plus metrics); default the logger. */
  edge?: RpcEdge;
  /** Proxy routing of DeleteRecords to the partition's leader; absent: NOT_LEADER. */
  forwarder?: LeaderForwarder;
  /** True for Tide's internal topics (DeleteRecords refuses them); absent: none is. */
  isInternalTopic?: (topic: string) => boolean;
}

function requireName(name: string): string {
  if (!name) throw new TideError('INVALID_REQUEST', 'name (the topic) is required');
  return name;
}

/** How long CreateTopic waits for this broker to serve the partitions it leads. */
const CREATE_VISIBLE_WAIT_MS = 5_000;
const CREATE_VISIBLE_POLL_MS = 10;

/**
 * Waits (bounded, best effort) until this broker's metadata has the new topic and the partitions
 * it leads are open, so a client that produces right after CreateTopic is not bounced with
 * LEADER_NOT_AVAILABLE. Partitions led elsewhere are their brokers' business; clients retry those.
 */
async function untilServedHere(deps: AdminDeps, name: string, partitionCount: number): Promise<void> {
  const deadline = Date.now() + CREATE_VISIBLE_WAIT_MS;
  let pending = Array.from({ length: partitionCount }, (_, p) => p);
  while (Date.now() < deadline) {
    const [known] = deps.metadata.topics([name]);
    if (known) {
      pending = pending.filter((p) => deps.partitions.awaitingLeader(name, p));
      if (pending.length === 0) return;
    }
    await new Promise((resolve) => setTimeout(resolve, CREATE_VISIBLE_POLL_MS));
  }
}

export function adminHandlers(deps: AdminDeps): AdminHandlersWithoutAcls {
  const logger = deps.edge ?? deps.logger;
  return {
    CreateTopic: unary(logger, 'CreateTopic', async (req: CreateTopicRequest) => {
      const topic = await deps.topics.createTopic({
        name: req.name,
        partitions: req.partitions,
        replicationFactor: req.replication_factor,
        configs: req.configs,
        validateOnly: req.validate_only,
      });
      if (!req.validate_only) await untilServedHere(deps, req.name, topic.partitions?.length ?? 0);
      return { topic };
    }),
    DeleteTopic: unary(logger, 'DeleteTopic', async (req) => {
      await deps.topics.deleteTopic(requireName(req.name));
      return {};
    }),
    ListTopics: unary(logger, 'ListTopics', async (req) => ({
      names: await deps.topics.listTopics(req.include_internal),
    })),
    DescribeTopic: unary(logger, 'DescribeTopic', async (req) => {
      const described = await deps.topics.describeTopic(requireName(req.name));
      const status: PartitionStatus__Input[] = [];
      for (const p of described.topic.partitions ?? []) {
        try {
          const partition = deps.partitions.leaderFor(req.name, p.partition ?? 0);
          status.push({
            partition: partition.partition,
            log_start_offset: partition.log.logStartOffset,
            high_watermark: partition.highWatermark,
            last_stable_offset: partition.lastStableOffset,
            log_end_offset: partition.log.logEndOffset,
            size_bytes: partition.log.sizeBytes,
            dirty_ratio: partition.log.dirtyRatio ?? 0,
          });
        } catch {
          // Led elsewhere or not yet open here: the status list says only what this broker knows.
        }
      }
      return { ...described, status };
    }),
    DescribeConfigs: unary(logger, 'DescribeConfigs', async (req) => ({
      configs: await deps.topics.describeConfigs(requireName(req.topic)),
    })),
    AlterConfigs: unary(logger, 'AlterConfigs', async (req: AlterConfigsRequest) => ({
      configs: await deps.topics.alterConfigs(requireName(req.topic), req.set, req.delete, req.validate_only),
    })),
    DescribeCluster: unary(logger, 'DescribeCluster', async () => ({
      cluster_id: deps.metadata.clusterId(),
      controller_id: deps.metadata.controllerId(),
      brokers: deps.metadata.brokers(),
    })),
    DeleteRecords: unary(logger, 'DeleteRecords', (req, metadata) =>
      deleteRecordsRouted(deps, req, metadata),
    ),
    ...elasticHandlers(logger, deps.elastic ?? noElastic),
  };
}

const noElastic: ElasticAdmin = {
  createPartitions: () =>
    Promise.reject(
      new TideError('INVALID_REQUEST', 'this broker cannot reach a controller to add partitions'),
    ),
};
