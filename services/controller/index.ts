/**
 * The controller module's public API: topic administration, broker liveness, producer ids, the
 * pure pieces (topic config table, topic names, replica placement, leadership decisions) the broker
 * also uses, the controller service (ControllerNode: election, reconciler, gRPC) and the client
 * brokers use to reach it (ControllerClient).
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
export { ControllerNode, RPC_CONFLICT_ATTEMPTS } from './controller-node';
export type { ControllerNodeDeps, ControllerStats } from './controller-node';
export {
  ControllerElection,
  DEFAULT_CONTROLLER_LEASE_TTL_MS,
  DEFAULT_CAMPAIGN_RETRY_DELAY_MS,
} from './election';
export type { ControllerElectionOptions, ElectionEvent, ElectionState } from './election';
export {
  activeControllerOf,
  decodeActiveControllerRecord,
  encodeActiveControllerRecord,
} from './controller-record';
export type { ActiveController, ActiveControllerRecord } from './controller-record';
export {
  controlledShutdownPartition,
  preferredLeaderElection,
  reconcilePartition,
  validateAlterPartition,
} from './partition-leadership';
export type {
  AlterPartitionProposal,
  BrokerLiveness,
  LeadershipChange,
  LeadershipDecision,
  ReconcileOptions,
} from './partition-leadership';
export { Reconciler, DEFAULT_LEADER_IMBALANCE_CHECK_INTERVAL_MS, emptyStats } from './reconciler';
export type { LeadershipStats, ReconcilerOptions } from './reconciler';
export { ControllerClient } from './remote-controller';
export type { AlterPartitionCall, ControllerClientOptions } from './remote-controller';
export { CONTROLLER_CONFIG_SCHEMA, DEFAULT_CONTROLLER_PORT, etcdEndpointList } from './config';
export type { ControllerConfig } from './config';
