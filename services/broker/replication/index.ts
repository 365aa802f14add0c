/**
 * Broker-to-broker replication (docs/replication.md): the leader's Replication service and the
 * followers' fetchers. The replica state machine (roles, HW, ISR, acks) lives in ../partition/.
 *
 *   const fetchers = new ReplicaFetcherManager({ brokerId, brokerEpoch, connect: grpcConnector(), clock, logger, settings });
 *   const replicas = new ReplicaManager({ brokerId, logs, clock, logger, settings, fetchers, isrProposer, mayLead });
 *   const replication = new ReplicationService({ partitions: replicas, clock, logger, defaultMaxBytes: replicas.settings.replicaFetchMaxBytes });
 *   server.addService(withZeroCopyReplication(internalProto().replication.Replication.service), replication.handlers());
 *   brokerRegistry.watchBrokers((u) => fetchers.setBrokers(u.brokers));
 */
export { ReplicationService, replicationHandlers } from './replication-service';
export { withZeroCopyReplication, zeroCopyReplicaFetchSerializer } from './response-serializer';
export {
  serveReplicaFetch,
  ReplicaFetchSession,
  type FetchThrottle,
  type HostedPartitions,
  type LeaderFetchDeps,
} from './leader-fetch';
export { ReassignmentThrottle, TokenBucket, type ReassignmentThrottleDeps } from './throttle';
export { ReplicaFetcher, type ReplicaFetcherDeps } from './replica-fetcher';
export {
  ReplicaFetcherManager,
  type LeaderUnreachableReporter,
  type ReplicaFetcherManagerDeps,
} from './fetcher-manager';
export { grpcConnector, type GrpcConnectorOptions } from './grpc-session';
export { inProcessConnector } from './in-process';
export type { LeaderEndpoint, ReplicationConnector, ReplicationSession } from './session';
