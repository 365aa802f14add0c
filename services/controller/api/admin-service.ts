/**
 * gRPC handlers of `tide.v1.Admin` on the controller: brokers forward their clients' Admin calls
 * here (ControllerClient). Topic operations go to the TopicManager through topicAdmin(); the
 * controller knows no offsets, so DescribeTopic carries no partition status.
 */
import type { AdminHandlersWithoutAcls } from '../../common/security/auth/acl-admin-service';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { unary } from '../../common/grpc/unary';
import type { ClusterDescription, TopicAdmin } from '../../common/cluster/admin-operations';
import type { ElasticAdmin } from '../../common/cluster/elastic-operations';
import { elasticHandlers } from '../../common/cluster/elastic-handlers';

export interface ControllerAdminDeps {
  /** Topic operations; each throws NOT_CONTROLLER on a standby. */
  topics: TopicAdmin;
  describeCluster(): Promise<ClusterDescription>;
  /** Adding partitions, moves and decommissions; each throws NOT_CONTROLLER on a standby. */
  elastic: ElasticAdmin;
  logger: Logger;
}

function requireName(name: string, field = 'name'): string {
  if (!name) throw new TideError('INVALID_REQUEST', `${field} (the topic) is required`);
  return name;
}

export function controllerAdminHandlers(deps: ControllerAdminDeps): AdminHandlersWithoutAcls {
  const { logger, topics } = deps;
  return {
    CreateTopic: unary(logger, 'CreateTopic', async (req) => ({
      topic: await topics.createTopic({
        name: req.name,
        partitions: req.partitions,
        replicationFactor: req.replication_factor,
        configs: req.configs,
        validateOnly: req.validate_only,
      }),
    })),
    DeleteTopic: unary(logger, 'DeleteTopic', async (req) => {
      await topics.deleteTopic(requireName(req.name));
      return {};
    }),
    ListTopics: unary(logger, 'ListTopics', async (req) => ({
      names: await topics.listTopics(req.include_internal),
    })),
    DescribeTopic: unary(logger, 'DescribeTopic', async (req) => ({
      ...(await topics.describeTopic(requireName(req.name))),
      status: [],
    })),
    DescribeConfigs: unary(logger, 'DescribeConfigs', async (req) => ({
      configs: await topics.describeConfigs(requireName(req.topic, 'topic')),
    })),
    AlterConfigs: unary(logger, 'AlterConfigs', async (req) => ({
      configs: await topics.alterConfigs(
        requireName(req.topic, 'topic'),
        req.set,
        req.delete,
        req.validate_only,
      ),
    })),
    DescribeCluster: unary(logger, 'DescribeCluster', async () => {
      const cluster = await deps.describeCluster();
      return { cluster_id: cluster.clusterId, controller_id: cluster.controllerId, brokers: cluster.brokers };
    }),
    DeleteRecords: unary(logger, 'DeleteRecords', () =>
      Promise.reject(
        new TideError(
          'INVALID_REQUEST',
          'DeleteRecords is served by the partition leader: send it to a broker, not the controller',
        ),
      ),
    ),
    ...elasticHandlers(logger, deps.elastic),
  };
}
