/**
 * The broker service's public API, for the composition roots (the `tide` CLI and `tide dev`):
 * a broker hosts partition replicas on its disk, serves produce and fetch, and replicates as leader
 * and follower. `ClusterBroker` is one broker of a multi-process cluster on etcd; `BrokerNode` is
 * the broker itself, given its metadata store and its way to the controller. Other services reach
 * it only over gRPC. See docs/replication.md and docs/storage.md.
 */
export { BrokerNode } from './broker-node';
export type { BrokerNodeDeps } from './broker-node';
export { ClusterBroker } from './cluster-broker';
export { BROKER_CONFIG_SCHEMA, type BrokerConfig } from './config';
