/**
 * The controller's implementation of the Admin API's topic operations (TopicAdmin): the topic
 * manager's calls, answered in wire shapes. The controller's Admin service serves it over gRPC, and
 * `tide dev` hands it to its broker in process.
 */
import type { InternalTopicCreator, TopicAdmin } from '../common/cluster/admin-operations';
import { toTopicInfo, toWireConfigEntries } from '../common/cluster/admin-wire';
import type { TopicManager } from './topic-manager';
import { TideError } from '../common/errors';
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

/**
 * Creation of Tide's own topics (internal: true), in wire shapes. An internal topic is created
 * with its full replication factor or not at all: while fewer brokers are registered the answer is
 * a retriable NOT_ENOUGH_REPLICAS (the caller waits and asks again), never a smaller topic that
 * would hold the only copy of every committed offset on one disk (Kafka's
 * offsets.topic.replication.factor behaves the same). For a topic that exists with a smaller
 * replication factor (created by an older version), the target is raised and the reconciler adds
 * replicas as brokers arrive; the answer is TOPIC_ALREADY_EXISTS as before.
 */
export function internalTopicCreator(manager: TopicManager): InternalTopicCreator {
  return {
    async createInternalTopic(spec) {
      const rf = spec.replicationFactor;
      const exists = await manager.describeTopic(spec.name).then(
        () => true,
        (err: unknown) => {
          if ((err as TideError).code === 'UNKNOWN_TOPIC') return false;
          throw err;
        },
      );
      if (exists) {
        if (rf > 0) await manager.raiseReplicationFactor(spec.name, rf);
        throw new TideError('TOPIC_ALREADY_EXISTS', `topic ${spec.name} already exists`, {
          context: { topic: spec.name },
        });
      }
      const live = (await manager.liveBrokers()).length;
      if (rf > live)
        throw new TideError(
          'NOT_ENOUGH_REPLICAS',
          `${spec.name} is created with replication factor ${rf} once ${rf} brokers are registered; ${live} are`,
          { context: { topic: spec.name }, retriable: true },
        );
      const created = await manager.createTopic({
        name: spec.name,
        partitions: spec.partitions,
        replicationFactor: rf,
        configs: spec.configs,
        internal: true,
      });
      return toTopicInfo(created);
    },
  };
}
