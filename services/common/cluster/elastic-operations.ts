/**
 * The Admin API's elastic-cluster operations, in wire shapes: adding partitions, moving replicas
 * (KIP-455 style reassignments) and decommissioning brokers. The controller implements them
 * (services/controller/elastic-admin.ts); brokers reach them over gRPC (ControllerClient) and serve
 * them on their Admin API. Kept apart from TopicAdmin so a setup without a controller (`tide dev`)
 * can offer only what it can do.
 */
import type { TopicInfo__Input } from '../grpc/generated/tide/v1/TopicInfo';
import type { OngoingReassignment__Input } from '../grpc/generated/tide/v1/OngoingReassignment';
import type { DecommissionStatus__Input } from '../grpc/generated/tide/v1/DecommissionStatus';

/** One partition's target replicas; an empty list cancels its move. */
export interface ReassignmentEntry {
  topic: string;
  partition: number;
  replicas: number[];
}

export interface ReassignmentOutcome {
  /** Partitions whose move started (or was cancelled). */
  accepted: number;
  /** Partitions already on their targets. */
  unchanged: number;
}

export interface PartitionAdmin {
  createPartitions(topic: string, count: number, validateOnly: boolean): Promise<TopicInfo__Input>;
}

export interface ReassignmentAdmin {
  alterReassignments(entries: ReassignmentEntry[], validateOnly: boolean): Promise<ReassignmentOutcome>;
  listReassignments(topics: string[]): Promise<OngoingReassignment__Input[]>;
  decommissionBroker(brokerId: number): Promise<DecommissionStatus__Input>;
  recommissionBroker(brokerId: number): Promise<DecommissionStatus__Input>;
  describeDecommission(brokerId: number): Promise<DecommissionStatus__Input>;
}

export type ElasticAdmin = PartitionAdmin & Partial<ReassignmentAdmin>;
