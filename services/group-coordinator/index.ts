/**
 * The group coordinator service: consumer groups with server-side incremental assignment, durable
 * offsets in `__consumer_offsets`, and etcd-leased shard ownership across 1..n instances.
 * See docs/consumer-groups.md.
 */
export { CoordinatorNode } from './coordinator-node';
export { COORDINATOR_CONFIG_SCHEMA, type CoordinatorConfig } from './config';
export { Coordinator } from './coordinator';
export { ConsumerGroup } from './group';
export { GROUP_TRANSITIONS, nextGroupState, type GroupState } from './group-state';
export { assignorFor, ASSIGNOR_NAMES, type AssignorName } from './assignors';
export { CoordinatorLocator } from './api/locator';
export { ShardOwners } from './shard-owners';
export { coordinatorProto } from './api/proto';
export { OFFSETS_TOPIC } from './offsets-codec';
export { shardOf, CoordinatorKeys } from './shards';
