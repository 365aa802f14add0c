/**
 * The controller's implementation of the Admin API's topic operations (TopicAdmin): the topic
 * manager's calls, answered in wire shapes. The controller's Admin service serves it over gRPC, and
 * `tide dev` hands it to its broker in process.
 */
import type { InternalTopicCreator, TopicAdmin } from '../common/cluster/admin-operations';
import { toTopicInfo, toWireConfigEntries } from '../common/cluster/admin-wire';
import type { TopicManager } from './topic-manager';
import { refuseReservedName } from '../common/cluster/topic-name';

/** The Admin API's topic operations over a TopicManager, in wire shapes. */
export function topicAdmin(manager: TopicManager): TopicAdmin {
  const liveIds = async (): Promise<Set<number>> => new Set((await manager.liveBrokers()).map((b) => b.id));
  return {
    async createTopic(spec) {
      refuseReservedName(spec.name);
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

/** Creation of Tide's own topics (internal: true), in wire shapes. */
export function internalTopicCreator(manager: TopicManager): InternalTopicCreator {
  return {
    async createInternalTopic(spec) {
      const created = await manager.createTopic({
        name: spec.name,
        partitions: spec.partitions,
        replicationFactor: spec.replicationFactor,
        configs: spec.configs,
        internal: true,
      });
      return toTopicInfo(created);
    },
  };
}
