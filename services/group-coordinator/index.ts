/**
 * The group coordinator service's public API, for the composition roots (the `tide` CLI and
 * `tide dev`): consumer groups with server-side incremental assignment, durable offsets in
 * `__consumer_offsets`, and etcd-leased shard ownership across 1..n instances. Clients and brokers
 * reach it only over gRPC. See docs/consumer-groups.md.
 */
export { CoordinatorNode } from './coordinator-node';
export type { CoordinatorNodeDeps } from './coordinator-node';
export { COORDINATOR_CONFIG_SCHEMA, type CoordinatorConfig } from './config';
