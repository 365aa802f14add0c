/**
 * Topic administration against the metadata store: create, delete and alter configs, on top of the
 * read side every service shares (TopicRegistry: list, describe, watch). Every write is one transaction whose compares make it safe against
 * concurrent writers, plus any fencing compares the caller supplies (an elected controller adds
 * "I still hold /controller"); a write whose fencing fails throws NOT_CONTROLLER.
 *
 * Partition states start with the preferred leader (first replica) as leader, leaderEpoch 0,
 * partitionEpoch 0 and isr = replicas; the controller's reconciler moves them later.
 *
 * On etcd, creating a topic writes partitions + 1 keys in one transaction: etcd's --max-txn-ops
 * (default 128) and --max-request-bytes must allow partitionsPerTopicMax + 1 puts.
 */
import { randomBytes } from 'crypto';
import { TideError } from '../common/errors';
import {
  decodeTopicRecord,
  encodePartitionState,
  encodeTopicRecord,
  type TopicRecord,
} from '../common/metadata/keys';
import type { Compare, TxnOp } from '../common/metadata/store';
import type { BrokerInfo } from '../common/cluster/broker-registry';
import {
  applyConfigChanges,
  describeConfigs,
  validateTopicConfigs,
  type ConfigEntry,
} from '../common/cluster/topic-config';
import { checkTopicCollision, validateTopicName } from '../common/cluster/topic-name';
import type { PartitionView } from '../common/cluster/topic-watcher';
import {
  TopicRegistry,
  describeTopicRecord,
  unknownTopic,
  type TopicDescription,
  type TopicRegistryOptions,
} from '../common/cluster/topic-registry';
import { assignReplicas, hasPartialRacks } from './placement';

export const DEFAULT_PARTITIONS_PER_TOPIC_MAX = 10_000;
export const DEFAULT_ALTER_CONFIGS_ATTEMPTS = 5;

/** Where the live broker list comes from: a function, or anything with listBrokers() (BrokerRegistry). */
export type LiveBrokers = (() => Promise<BrokerInfo[]>) | { listBrokers(): Promise<BrokerInfo[]> };

export interface TopicManagerOptions extends TopicRegistryOptions {
  /** Replication factor of topics created without one (or with 0). */
  defaultReplicationFactor: number;
  liveBrokers: LiveBrokers;
  /** Brokers new replicas may be placed on; default liveBrokers (the controller leaves out decommissioned ones). */
  placementBrokers?: () => Promise<BrokerInfo[]>;
  /** Upper bound on a topic's partition count; default DEFAULT_PARTITIONS_PER_TOPIC_MAX. */
  partitionsPerTopicMax?: number;
  /** Conflict retries of alterConfigs before it gives up with METADATA_UNAVAILABLE (retriable). */
  alterConfigsAttempts?: number;
  /** Randomness in [0, 1) for replica placement; default Math.random. */
  random?: () => number;
  /** New topic ids; default 16 random bytes in base64url (22 characters, as Kafka's). */
  newTopicId?: () => string;
  /** Compares added to every write, e.g. "this controller still holds /controller". */
  fencing?: () => Compare[];
}

export interface CreateTopicRequest {
  name: string;
  partitions: number;
  /** Absent or 0 = the default replication factor. */
  replicationFactor?: number;
  /** Topic configs (see topic-config.ts); unknown keys and invalid values are rejected whole. */
  configs?: Record<string, string>;
  /** Validate and compute the assignment, write nothing. */
  validateOnly?: boolean;
  /** For Tide's own topics (hidden from listTopics by default); not exposed on the Admin API. */
  internal?: boolean;
}

export interface AlterConfigsRequest {
  set?: Record<string, string>;
  /** Keys to return to their defaults. */
  delete?: string[];
  validateOnly?: boolean;
}

export interface WriteOptions {
  /** Compares added to this write's transaction (after the constructor's `fencing`). */
  extraCompares?: Compare[];
}

export class TopicManager extends TopicRegistry {
  private readonly maxPartitions: number;
  private readonly alterAttempts: number;
  private readonly newTopicId: () => string;

  constructor(private readonly options: TopicManagerOptions) {
    super(options, 'topic-manager');
    this.maxPartitions = options.partitionsPerTopicMax ?? DEFAULT_PARTITIONS_PER_TOPIC_MAX;
    this.alterAttempts = options.alterConfigsAttempts ?? DEFAULT_ALTER_CONFIGS_ATTEMPTS;
    this.newTopicId = options.newTopicId ?? randomTopicId;
    if (!Number.isInteger(options.defaultReplicationFactor) || options.defaultReplicationFactor < 1) {
      throw new TideError(
        'INVALID_CONFIG',
        `defaultReplicationFactor must be an integer >= 1 (got ${options.defaultReplicationFactor})`,
      );
    }
  }

  /**
   * Creates a topic and all its partition states in one transaction. Throws INVALID_TOPIC,
   * INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR, INVALID_CONFIG, TOPIC_ALREADY_EXISTS,
   * NOT_CONTROLLER (fencing failed).
   */
  async createTopic(request: CreateTopicRequest, options: WriteOptions = {}): Promise<TopicDescription> {
    const { name, partitions } = request;
    validateTopicName(name);
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > this.maxPartitions) {
      throw new TideError(
        'INVALID_PARTITIONS',
        `partition count must be an integer in 1..${this.maxPartitions} (got ${partitions})`,
        {
          context: { topic: name },
        },
      );
    }
    const rf = request.replicationFactor || this.options.defaultReplicationFactor;
    if (!Number.isInteger(rf) || rf < 1) {
      throw new TideError(
        'INVALID_REPLICATION_FACTOR',
        `replication factor must be an integer >= 1 (got ${rf})`,
        { context: { topic: name } },
      );
    }
    const configs = validateTopicConfigs(request.configs ?? {});
    const brokers = await this.placementBrokers();
    if (hasPartialRacks(brokers))
      this.logger.warn({ topic: name }, 'only some brokers have a rack; placing replicas without racks');
    const assignment = assignReplicas({
      partitions,
      replicationFactor: rf,
      brokers,
      random: this.options.random,
    });
    const minIsr = Number(configs['min.insync.replicas'] ?? 1);
    if (minIsr > rf) {
      throw new TideError(
        'INVALID_CONFIG',
        `min.insync.replicas=${minIsr} exceeds the replication factor ${rf}: every acks=all produce would fail with NOT_ENOUGH_REPLICAS; lower min.insync.replicas or raise --replication-factor`,
        { context: { topic: name } },
      );
    }
    const topicKey = this.keys.topic(name);
    if (await this.store.get(topicKey)) throw alreadyExists(name);
    checkTopicCollision(name, await this.topicNames());

    const record: TopicRecord = {
      topicId: request.validateOnly ? '' : this.newTopicId(),
      partitions,
      replicationFactor: rf,
      configs,
      createdAtMs: this.options.clock.nowMs(),
      internal: request.internal ?? false,
    };
    const states: PartitionView[] = assignment.map((replicas, partition) => ({
      partition,
      leader: replicas[0],
      leaderEpoch: 0,
      partitionEpoch: 0,
      replicas,
      isr: [...replicas],
    }));
    if (request.validateOnly) return describeTopicRecord(name, record, states);

    const puts: TxnOp[] = [
      { type: 'put', key: topicKey, value: encodeTopicRecord(record) },
      ...states.map(({ partition, ...state }): TxnOp => ({
        type: 'put',
        key: this.keys.partition(name, partition),
        value: encodePartitionState(state),
      })),
    ];
    const result = await this.store.txn(
      this.compares([{ key: topicKey, target: 'createRevision', op: '=', value: 0 }], options),
      puts,
      [{ type: 'get', key: topicKey }],
    );
    if (!result.succeeded) throw result.gets[0] ? alreadyExists(name) : notController('create topic', name);
    this.logger.info(
      {
        topic: name,
        topicId: record.topicId,
        partitions,
        replicationFactor: rf,
        configs,
        revision: result.revision,
      },
      'topic created',
    );
    return describeTopicRecord(name, record, states);
  }

  /** Names of every topic in the store (internal ones included). */
  private async topicNames(): Promise<string[]> {
    const prefix = this.keys.topicsPrefix;
    const { kvs } = await this.store.getPrefix(prefix);
    return kvs.map((kv) => kv.key.slice(prefix.length));
  }

  /** Deletes a topic and its partition states in one transaction. Throws UNKNOWN_TOPIC, NOT_CONTROLLER. */
  async deleteTopic(name: string, options: WriteOptions = {}): Promise<void> {
    validateTopicName(name);
    const topicKey = this.keys.topic(name);
    const existing = await this.store.get(topicKey);
    // Kafka refuses to delete __consumer_offsets too: every committed offset lives there.
    if (existing && decodeTopicRecord(existing.value, topicKey).internal)
      throw new TideError('INTERNAL_TOPIC', `${name} is an internal topic and cannot be deleted`, {
        context: { topic: name },
      });
    const result = await this.store.txn(
      this.compares([{ key: topicKey, target: 'createRevision', op: '>', value: 0 }], options),
      [
        { type: 'delete', key: topicKey },
        { type: 'deletePrefix', prefix: this.keys.partitionsOf(name) },
      ],
      [{ type: 'get', key: topicKey }],
    );
    if (!result.succeeded) throw result.gets[0] ? notController('delete topic', name) : unknownTopic(name);
    this.logger.info({ topic: name, revision: result.revision }, 'topic deleted');
  }

  /**
   * Sets and deletes config keys, validated whole (nothing changes if any part is invalid).
   * Written with a compare on the topic key's modRevision, retried on conflict, so concurrent
   * alters never lose each other's keys. Returns the effective configs after the change.
   */
  async alterConfigs(
    name: string,
    request: AlterConfigsRequest,
    options: WriteOptions = {},
  ): Promise<ConfigEntry[]> {
    for (let attempt = 1; ; attempt++) {
      const { kv, record } = await this.readTopic(name);
      const configs = applyConfigChanges(record.configs, request.set ?? {}, request.delete ?? []);
      if (request.validateOnly) return describeConfigs(configs);
      const result = await this.store.txn(
        this.compares([{ key: kv.key, target: 'modRevision', op: '=', value: kv.modRevision }], options),
        [{ type: 'put', key: kv.key, value: encodeTopicRecord({ ...record, configs }) }],
        [{ type: 'get', key: kv.key }],
      );
      if (result.succeeded) {
        this.logger.info(
          { topic: name, set: request.set, delete: request.delete, revision: result.revision },
          'topic configs altered',
        );
        return describeConfigs(configs);
      }
      const now = result.gets[0];
      if (!now || now.createRevision !== kv.createRevision) throw unknownTopic(name);
      if (now.modRevision === kv.modRevision) throw notController('alter configs of', name);
      if (attempt >= this.alterAttempts) {
        throw new TideError(
          'METADATA_UNAVAILABLE',
          `topic ${name} kept changing during alterConfigs (${attempt} attempts); retry`,
          {
            context: { topic: name },
          },
        );
      }
    }
  }

  /**
   * Grows a topic to `count` partitions (Kafka's CreatePartitions): the new partitions are placed
   * like a new topic's (placement.ts, continuing from the current count so leaders keep spreading)
   * on the live brokers `placementBrokers` gives, and written with the new count in one
   * transaction guarded by the topic key's modRevision. Existing partitions are untouched, so
   * records stay where they are, but a key may hash to a different partition from now on.
   * Throws INVALID_PARTITIONS (not larger, above the maximum), UNKNOWN_TOPIC, INVALID_REPLICATION_FACTOR
   * (fewer live brokers than the replication factor), NOT_CONTROLLER.
   */
  async createPartitions(
    name: string,
    count: number,
    request: { validateOnly?: boolean } = {},
    options: WriteOptions = {},
  ): Promise<TopicDescription> {
    const { kv, record } = await this.readTopic(name);
    if (!Number.isInteger(count) || count > this.maxPartitions) {
      throw new TideError(
        'INVALID_PARTITIONS',
        `partition count must be an integer up to ${this.maxPartitions} (got ${count})`,
        { context: { topic: name } },
      );
    }
    if (count <= record.partitions) {
      throw new TideError(
        'INVALID_PARTITIONS',
        `topic ${name} has ${record.partitions} partitions; the count can only grow (asked for ${count}). ` +
          'Partitions cannot be removed: their records would be lost',
        { context: { topic: name } },
      );
    }
    const brokers = await this.placementBrokers();
    const assignment = assignReplicas({
      partitions: count - record.partitions,
      replicationFactor: record.replicationFactor,
      brokers,
      startPartition: record.partitions,
      random: this.options.random,
    });
    const added: PartitionView[] = assignment.map((replicas, i) => ({
      partition: record.partitions + i,
      leader: replicas[0],
      leaderEpoch: 0,
      partitionEpoch: 0,
      replicas,
      isr: [...replicas],
    }));
    const current = await this.describeTopic(name);
    const grown = { ...record, partitions: count };
    if (request.validateOnly) return describeTopicRecord(name, grown, [...current.partitions, ...added]);
    const result = await this.store.txn(
      this.compares([{ key: kv.key, target: 'modRevision', op: '=', value: kv.modRevision }], options),
      [
        { type: 'put', key: kv.key, value: encodeTopicRecord(grown) },
        ...added.map(({ partition, ...state }): TxnOp => ({
          type: 'put',
          key: this.keys.partition(name, partition),
          value: encodePartitionState(state),
        })),
      ],
      [{ type: 'get', key: kv.key }],
    );
    if (!result.succeeded) {
      const now = result.gets[0];
      if (!now || now.createRevision !== kv.createRevision) throw unknownTopic(name);
      if (now.modRevision === kv.modRevision) throw notController('add partitions to', name);
      throw new TideError(
        'METADATA_UNAVAILABLE',
        `topic ${name} changed while partitions were being added; retry`,
        { context: { topic: name }, retriable: true },
      );
    }
    this.logger.info(
      { topic: name, from: record.partitions, to: count, revision: result.revision },
      'partitions added',
    );
    return describeTopicRecord(name, grown, [...current.partitions, ...added]);
  }

  /**
   * Raises an internal topic's target replication factor (never lowers it). The reconciler then
   * adds replicas to its partitions as live brokers allow (internal-replicas.ts). Returns whether
   * the record changed.
   */
  async raiseReplicationFactor(
    name: string,
    replicationFactor: number,
    options: WriteOptions = {},
  ): Promise<boolean> {
    const { kv, record } = await this.readTopic(name);
    if (!record.internal || record.replicationFactor >= replicationFactor) return false;
    const result = await this.store.txn(
      this.compares([{ key: kv.key, target: 'modRevision', op: '=', value: kv.modRevision }], options),
      [{ type: 'put', key: kv.key, value: encodeTopicRecord({ ...record, replicationFactor }) }],
      [],
    );
    if (result.succeeded)
      this.logger.info(
        { topic: name, from: record.replicationFactor, to: replicationFactor },
        'internal topic replication factor raised; replicas are added as brokers allow',
      );
    return result.succeeded;
  }

  /** The brokers new replicas may go to (see TopicManagerOptions.placementBrokers). */
  placementBrokers(): Promise<BrokerInfo[]> {
    return this.options.placementBrokers?.() ?? this.liveBrokers();
  }

  /** The live brokers, as the constructor's `liveBrokers` gives them. */
  liveBrokers(): Promise<BrokerInfo[]> {
    const source = this.options.liveBrokers;
    return typeof source === 'function' ? source() : source.listBrokers();
  }

  private compares(own: Compare[], options: WriteOptions): Compare[] {
    return [...own, ...(this.options.fencing?.() ?? []), ...(options.extraCompares ?? [])];
  }
}

/** 16 random bytes as base64url, never starting with '-' (Kafka avoids ids that look like flags). */
export function randomTopicId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function alreadyExists(name: string): TideError {
  return new TideError('TOPIC_ALREADY_EXISTS', `topic ${name} already exists`, { context: { topic: name } });
}

function notController(what: string, name: string): TideError {
  return new TideError(
    'NOT_CONTROLLER',
    `could not ${what} topic ${name}: a fencing compare failed (this controller lost leadership)`,
    {
      context: { topic: name },
    },
  );
}
