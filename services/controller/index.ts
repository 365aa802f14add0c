/**
 * The controller module's public API: topic administration, broker liveness, producer ids, and the
 * pure pieces (topic config table, topic names, replica placement) the broker also uses.
 */
export { BrokerRegistry, DEFAULT_BROKER_LEASE_TTL_MS } from './broker-registry';
export type {
  BrokerInfo,
  BrokerRegistration,
  BrokerRegistryOptions,
  BrokersUpdate,
  RegisterOptions,
} from './broker-registry';
export { ensureClusterId, randomClusterId, readClusterId } from './cluster-id';
export {
  assignReplicas,
  hasPartialRacks,
  isRackAware,
  preferredLeader,
  rackAlternatedBrokers,
  seededRandom,
} from './placement';
export type { AssignReplicasOptions, PlacementBroker } from './placement';
export { ProducerIdAllocator, DEFAULT_PRODUCER_ID_BLOCK_SIZE } from './producer-ids';
export type { ProducerIdAllocatorOptions } from './producer-ids';
export * from './topic-config';
export { MAX_TOPIC_NAME_LENGTH, validateTopicName } from './topic-name';
export { TopicManager, DEFAULT_PARTITIONS_PER_TOPIC_MAX, randomTopicId } from './topic-manager';
export type {
  AlterConfigsRequest,
  CreateTopicRequest,
  LiveBrokers,
  TopicDescription,
  TopicManagerOptions,
  WriteOptions,
} from './topic-manager';
export type { PartitionView, TopicChange, TopicState, TopicsUpdate, TopicWatch } from './topic-watcher';
export { topicAdmin, toTopicInfo, toWireConfigEntries } from './admin-wire';
export type { TopicAdminOperations, TopicLike } from './admin-wire';
