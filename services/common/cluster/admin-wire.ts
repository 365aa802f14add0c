/**
 * The Admin API's wire shapes (tide.v1 TopicInfo, ConfigEntry) from the topic registry's types.
 */
import type { ConfigEntry__Input } from '../grpc/generated/tide/v1/ConfigEntry';
import type { TopicInfo__Input } from '../grpc/generated/tide/v1/TopicInfo';
import type { ConfigEntry } from './topic-config';
import type { PartitionView } from './topic-watcher';

/** What toTopicInfo needs: a TopicDescription or a watched TopicState both fit. */
export interface TopicLike {
  name: string;
  topicId: string;
  internal: boolean;
  partitions: PartitionView[];
  /** Effective max.message.bytes, when known (a watched TopicState has it). */
  maxMessageBytes?: number;
}

/**
 * The wire TopicInfo. `liveBrokerIds`, when given, fills offline_replicas (replicas whose broker
 * is not registered); without it offline_replicas is empty.
 */
export function toTopicInfo(topic: TopicLike, liveBrokerIds?: ReadonlySet<number>): TopicInfo__Input {
  return {
    name: topic.name,
    topic_id: topic.topicId,
    internal: topic.internal,
    partitions: topic.partitions.map((p) => ({
      partition: p.partition,
      leader: p.leader,
      leader_epoch: p.leaderEpoch,
      replicas: [...p.replicas],
      isr: [...p.isr],
      offline_replicas: liveBrokerIds ? p.replicas.filter((id) => !liveBrokerIds.has(id)) : [],
      partition_epoch: p.partitionEpoch,
    })),
    max_message_bytes: topic.maxMessageBytes ?? 0,
  };
}

export function toWireConfigEntries(entries: ConfigEntry[]): ConfigEntry__Input[] {
  return entries.map((e) => ({ name: e.name, value: e.value, is_default: e.isDefault }));
}
