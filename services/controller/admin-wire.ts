/**
 * The Admin API's wire shapes (tide.v1 TopicInfo, ConfigEntry) from the topic manager's types, and
 * a `topicAdmin(manager)` object with the method shapes the broker's Admin handlers call.
 */
import type { ConfigEntry__Input } from '../common/grpc/generated/tide/v1/ConfigEntry';
import type { TopicInfo__Input } from '../common/grpc/generated/tide/v1/TopicInfo';
import type { TopicAdmin } from '../common/topic-admin';
import type { ConfigEntry } from './topic-config';
import type { TopicManager } from './topic-manager';
import type { PartitionView } from './topic-watcher';

/** What toTopicInfo needs: a TopicDescription or a watched TopicState both fit. */
export interface TopicLike {
  name: string;
  topicId: string;
  internal: boolean;
  partitions: PartitionView[];
  /** Effective storage config, when known (a watched TopicState has it). */
  logConfig?: { maxMessageBytes: number };
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
    max_message_bytes: topic.logConfig?.maxMessageBytes ?? 0,
  };
}

export function toWireConfigEntries(entries: ConfigEntry[]): ConfigEntry__Input[] {
  return entries.map((e) => ({ name: e.name, value: e.value, is_default: e.isDefault }));
}

/** The Admin API's topic operations over a TopicManager, in wire shapes. */
/** What topicAdmin() returns: the Admin API's topic operations (services/common/topic-admin.ts). */
export type TopicAdminOperations = TopicAdmin;

export function topicAdmin(manager: TopicManager): TopicAdminOperations {
  const liveIds = async (): Promise<Set<number>> => new Set((await manager.liveBrokers()).map((b) => b.id));
  return {
    async createTopic(spec) {
      const created = await manager.createTopic({
        name: spec.name,
        partitions: spec.partitions,
        replicationFactor: spec.replicationFactor,
        configs: spec.configs,
        validateOnly: spec.validateOnly,
      });
      return toTopicInfo(created);
    },
    deleteTopic: (name) => manager.deleteTopic(name),
    listTopics: (includeInternal) => manager.listTopics({ includeInternal }),
    async describeTopic(name) {
      const [described, live] = await Promise.all([manager.describeTopic(name), liveIds()]);
      return { topic: toTopicInfo(described, live), configs: toWireConfigEntries(described.configs) };
    },
    describeConfigs: async (name) => toWireConfigEntries(await manager.describeConfigs(name)),
    alterConfigs: async (name, set, remove, validateOnly) =>
      toWireConfigEntries(await manager.alterConfigs(name, { set, delete: remove, validateOnly })),
  };
}
