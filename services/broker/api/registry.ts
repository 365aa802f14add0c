/**
 * What the API handlers need from the rest of the broker, as narrow interfaces, so handlers stay
 * thin (validate, call, map errors) and testable.
 */
import type { Partition } from '../partition/partition';
import type { BrokerInfo__Input } from '../../common/grpc/generated/tide/v1/BrokerInfo';
import type { TopicInfo__Input } from '../../common/grpc/generated/tide/v1/TopicInfo';

/** Finds the hosted partition replica or throws UNKNOWN_TOPIC / UNKNOWN_PARTITION / NOT_LEADER. */
export interface PartitionRegistry {
  leaderFor(topic: string, partition: number): Partition;
  /** True when `leaderFor` would throw LEADER_NOT_AVAILABLE (checked without building the error). */
  awaitingLeader(topic: string, partition: number): boolean;
}

/** The broker's current view of cluster metadata. */
export interface MetadataView {
  clusterId(): string;
  controllerId(): number;
  brokers(): BrokerInfo__Input[];
  /** All topics, or the named ones (unknown names are omitted). */
  topics(names?: string[]): TopicInfo__Input[];
  /** Calls `listener` after every change of this view; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}

export interface ProducerIdSource {
  next(): Promise<number>;
}
