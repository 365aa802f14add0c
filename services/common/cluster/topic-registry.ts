/**
 * The read side of topics: list, describe and watch them in the metadata store. Every service that
 * needs to know the topics (brokers host their partitions, coordinators find the offsets topic, the
 * controller decides leaders) reads them through this; only the controller writes them
 * (services/controller/topic-manager.ts).
 */
import type { Clock } from '../clock';
import { TideError } from '../errors';
import { echo } from '../echo';
import type { Logger } from '../logger';
import { MetadataKeys, decodePartitionState, decodeTopicRecord, type TopicRecord } from '../metadata/keys';
import type { KeyValue, MetadataStore } from '../metadata/store';
import { describeConfigs, type ConfigEntry } from './topic-config';
import { validateTopicName } from './topic-name';
import { watchTopics, type PartitionView, type TopicsUpdate, type TopicWatch } from './topic-watcher';

export interface TopicRegistryOptions {
  store: MetadataStore;
  clusterName: string;
  clock: Clock;
  logger: Logger;
}

export interface TopicDescription {
  name: string;
  /** Empty for a validateOnly create. */
  topicId: string;
  internal: boolean;
  partitionCount: number;
  replicationFactor: number;
  createdAtMs: number;
  /** Sorted by partition index. */
  partitions: PartitionView[];
  /** Every config key with its effective value. */
  configs: ConfigEntry[];
  /** Only the keys the topic sets. */
  explicitConfigs: Record<string, string>;
}

export class TopicRegistry {
  /** The cluster's metadata keys (for callers that build their own compares). */
  readonly keys: MetadataKeys;
  protected readonly store: MetadataStore;
  protected readonly logger: Logger;

  constructor(
    private readonly registryOptions: TopicRegistryOptions,
    component = 'topic-registry',
  ) {
    this.keys = new MetadataKeys(registryOptions.clusterName);
    this.store = registryOptions.store;
    this.logger = registryOptions.logger.child({ component });
  }

  /** Topic names, sorted; internal topics only when asked for. */
  async listTopics(options: { includeInternal?: boolean } = {}): Promise<string[]> {
    const range = await this.store.getPrefix(this.keys.topicsPrefix);
    const names: string[] = [];
    for (const kv of range.kvs) {
      const parsed = this.keys.parse(kv.key);
      if (parsed?.kind !== 'topic') continue;
      let internal = false;
      try {
        internal = decodeTopicRecord(kv.value, kv.key).internal;
      } catch (err) {
        this.logger.error(
          { err, topic: parsed.topic },
          'topic record unreadable; listing it as a user topic',
        );
      }
      if (!internal || options.includeInternal) names.push(parsed.topic);
    }
    return names.sort();
  }

  /** The topic, its partition states and its configs. Throws UNKNOWN_TOPIC. */
  async describeTopic(name: string): Promise<TopicDescription> {
    validateTopicName(name);
    for (let attempt = 0; ; attempt++) {
      // Partitions first, then the topic: if the topic we read existed when the partitions were
      // read (createRevision <= that revision), they belong to this incarnation of it.
      const range = await this.store.getPrefix(this.keys.partitionsOf(name));
      const kv = await this.store.get(this.keys.topic(name));
      if (!kv) throw unknownTopic(name);
      if (kv.createRevision > range.revision && attempt < 3) continue;
      const record = decodeTopicRecord(kv.value, kv.key);
      const states: PartitionView[] = [];
      for (const partitionKv of range.kvs) {
        const parsed = this.keys.parse(partitionKv.key);
        if (parsed?.kind === 'partition' && parsed.partition < record.partitions) {
          states.push({
            partition: parsed.partition,
            ...decodePartitionState(partitionKv.value, partitionKv.key),
          });
        }
      }
      return describeTopicRecord(
        name,
        record,
        states.sort((a, b) => a.partition - b.partition),
      );
    }
  }

  /** Every config key of the topic with its effective value. Throws UNKNOWN_TOPIC. */
  async describeConfigs(name: string): Promise<ConfigEntry[]> {
    const { record } = await this.readTopic(name);
    return describeConfigs(record.configs);
  }

  /**
   * Follows every topic: the listener gets the current topics first, then each change in revision
   * order (see topic-watcher.ts). Resolves after the first call.
   */
  watchTopics(listener: (update: TopicsUpdate) => void): Promise<TopicWatch> {
    return watchTopics(
      { store: this.store, keys: this.keys, clock: this.registryOptions.clock, logger: this.logger },
      listener,
    );
  }

  protected async readTopic(name: string): Promise<{ kv: KeyValue; record: TopicRecord }> {
    validateTopicName(name);
    const kv = await this.store.get(this.keys.topic(name));
    if (!kv) throw unknownTopic(name);
    return { kv, record: decodeTopicRecord(kv.value, kv.key) };
  }
}

export function describeTopicRecord(
  name: string,
  record: TopicRecord,
  partitions: PartitionView[],
): TopicDescription {
  return {
    name,
    topicId: record.topicId,
    internal: record.internal,
    partitionCount: record.partitions,
    replicationFactor: record.replicationFactor,
    createdAtMs: record.createdAtMs,
    partitions,
    configs: describeConfigs(record.configs),
    explicitConfigs: { ...record.configs },
  };
}

export function unknownTopic(name: string): TideError {
  return new TideError('UNKNOWN_TOPIC', `topic ${echo(name)} does not exist`, { context: { topic: name } });
}
