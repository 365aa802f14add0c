/**
 * The controller service's public API, for the composition roots (the `tide` CLI and `tide dev`):
 * the node that campaigns for the controller role and, once elected, owns topic administration,
 * replica placement and partition leadership. Other services reach it only over gRPC
 * (services/common/cluster/controller-client.ts) and the metadata store. See docs/controller.md.
 */
export { ControllerNode, RPC_CONFLICT_ATTEMPTS } from './controller-node';
export type { ControllerNodeDeps, ControllerStats } from './controller-node';
export { CONTROLLER_CONFIG_SCHEMA, DEFAULT_CONTROLLER_PORT, etcdEndpointList } from './config';
export type { ControllerConfig } from './config';
export { controllerMetrics } from './metrics';
export { TopicManager, DEFAULT_PARTITIONS_PER_TOPIC_MAX, randomTopicId } from './topic-manager';
export type {
  AlterConfigsRequest,
  CreateTopicRequest,
  LiveBrokers,
  TopicManagerOptions,
  WriteOptions,
} from './topic-manager';
export { internalTopicCreator, topicAdmin } from './topic-admin';
export { elasticAdmin, partitionAdmin } from './elastic-admin';
