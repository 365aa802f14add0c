/**
 * What the API handlers need from the rest of the broker, as narrow interfaces, so handlers stay
 * thin (validate, call, map errors) and testable.
 */
import type { BrokerInfo__Input } from '../../common/grpc/generated/tide/v1/BrokerInfo';
import type { TopicInfo__Input } from '../../common/grpc/generated/tide/v1/TopicInfo';

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
