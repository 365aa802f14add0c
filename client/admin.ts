/**
 * Topic and cluster administration: thin typed wrappers over the Admin service (and Broker
 * Metadata). Requests go to the cluster's control broker, which hands them to the controller;
 * retriable failures (an unreachable broker, NOT_CONTROLLER, METADATA_UNAVAILABLE) are retried
 * with backoff. Results are camelCase views of the wire messages.
 */
import type { AdminClient } from '../services/common/grpc/generated/tide/v1/Admin';
import type { AlterConfigsResponse } from '../services/common/grpc/generated/tide/v1/AlterConfigsResponse';
import type { ConfigEntry as WireConfigEntry } from '../services/common/grpc/generated/tide/v1/ConfigEntry';
import type { CreateTopicResponse } from '../services/common/grpc/generated/tide/v1/CreateTopicResponse';
import type { DeleteTopicResponse } from '../services/common/grpc/generated/tide/v1/DeleteTopicResponse';
import type { DescribeClusterResponse } from '../services/common/grpc/generated/tide/v1/DescribeClusterResponse';
import type { DescribeConfigsResponse } from '../services/common/grpc/generated/tide/v1/DescribeConfigsResponse';
import type { DescribeTopicResponse } from '../services/common/grpc/generated/tide/v1/DescribeTopicResponse';
import type { ListTopicsResponse } from '../services/common/grpc/generated/tide/v1/ListTopicsResponse';
import type { TopicInfo } from '../services/common/grpc/generated/tide/v1/TopicInfo';
import type { CreatePartitionsResponse } from '../services/common/grpc/generated/tide/v1/CreatePartitionsResponse';
import type { AlterPartitionReassignmentsResponse } from '../services/common/grpc/generated/tide/v1/AlterPartitionReassignmentsResponse';
import type { ListPartitionReassignmentsResponse } from '../services/common/grpc/generated/tide/v1/ListPartitionReassignmentsResponse';
import type { DecommissionStatus as WireDecommissionStatus } from '../services/common/grpc/generated/tide/v1/DecommissionStatus';
import type { AclBinding as WireAclBinding } from '../services/common/grpc/generated/tide/v1/AclBinding';
import type { CreateAclsResponse } from '../services/common/grpc/generated/tide/v1/CreateAclsResponse';
import type { DescribeAclsResponse } from '../services/common/grpc/generated/tide/v1/DescribeAclsResponse';
import type { DeleteAclsResponse } from '../services/common/grpc/generated/tide/v1/DeleteAclsResponse';
import type { ClientQuota as WireClientQuota } from '../services/common/grpc/generated/tide/v1/ClientQuota';
import type { AlterClientQuotasResponse } from '../services/common/grpc/generated/tide/v1/AlterClientQuotasResponse';
import type { DescribeClientQuotasResponse } from '../services/common/grpc/generated/tide/v1/DescribeClientQuotasResponse';
import type { DeleteRecordsResponse } from '../services/common/grpc/generated/tide/v1/DeleteRecordsResponse';

/**
 * An ACL binding (docs/security.md): the principal may (allow) or may not (deny) perform the
 * operation on resources of the type whose name is `name` (literal; `*` = all) or starts with it
 * (prefixed). Values are lower case, as in Kafka's kafka-acls minus the prefixes.
 */
export interface AclBinding {
  principal: string;
  resourceType: 'topic' | 'group' | 'cluster' | 'transactional_id';
  patternType?: 'literal' | 'prefixed';
  name: string;
  operation:
    | 'read'
    | 'write'
    | 'create'
    | 'delete'
    | 'alter'
    | 'describe'
    | 'describe_configs'
    | 'alter_configs'
    | 'cluster_action'
    | 'idempotent_write'
    | 'all';
  permission?: 'allow' | 'deny';
}

/** Selects bindings by exact field values; an absent field matches any. */
export type AclFilter = Partial<AclBinding>;

/** A quota key (docs/security.md#quotas). */
export type QuotaKey =
  'producer_byte_rate' | 'consumer_byte_rate' | 'request_rate' | 'controller_mutation_rate' | 'max_streams';

/**
 * Who a quota applies to: a user (principal), a client id, or both; `<default>` names the
 * default of its kind. An absent part is not part of the entity.
 */
export interface QuotaEntity {
  user?: string;
  clientId?: string;
}

export interface ClientQuota {
  entity: QuotaEntity;
  values: Partial<Record<QuotaKey, number>>;
}

/** A replica move in flight (ListPartitionReassignments). */
export interface PartitionMove {
  topic: string;
  partition: number;
  replicas: number[];
  adding: number[];
  removing: number[];
  target: number[];
  /** Adding replicas already in sync. */
  caughtUp: number[];
  startedAtMs: number;
  /** 'admin', 'decommission' or 'balancer'. */
  origin: string;
}

export interface DecommissionStatus {
  brokerId: number;
  decommissioning: boolean;
  remainingReplicas: number;
  remainingLeaders: number;
}
import { TideError } from '../services/common/errors';
import {
  Cluster,
  partitionsOf,
  type BrokerMetadata,
  type ClusterMetadata,
  type ClusterOptions,
  type PartitionMetadata,
} from './cluster';
import type { Invoke } from './net/broker-calls';
import { DEFAULT_RETRY, retry, type RetryOptions } from './retry';

export interface CreateTopicOptions {
  partitions: number;
  /** 0 or absent: the cluster default. */
  replicationFactor?: number;
  /** Topic configs, e.g. { 'retention.ms': '86400000', 'cleanup.policy': 'compact' }. */
  configs?: Record<string, string>;
  /** Check the request without creating anything. */
  validateOnly?: boolean;
}

export interface TopicDescription {
  name: string;
  topicId: string;
  internal: boolean;
  partitions: PartitionMetadata[];
}

export interface ConfigEntry {
  name: string;
  value: string;
  /** True when the value is the default, not set on the topic. */
  isDefault: boolean;
}

export interface PartitionStatus {
  partition: number;
  logStartOffset: number;
  highWatermark: number;
  /** The last stable offset (read_committed consumers read below it); <= highWatermark. */
  lastStableOffset: number;
  logEndOffset: number;
  sizeBytes: number;
  /** Compacted topics: bytes written since the last cleaning / cleanable bytes (0..1); else 0. */
  dirtyRatio: number;
}

export interface TopicDetails {
  topic: TopicDescription;
  configs: ConfigEntry[];
  /** Per-partition offsets and size as the leaders see them (absent for unreachable ones). */
  status: PartitionStatus[];
}

export interface ClusterDescription {
  clusterId: string;
  controllerId: number;
  brokers: BrokerMetadata[];
}

export interface AlterConfigsOptions {
  set?: Record<string, string>;
  delete?: string[];
  validateOnly?: boolean;
}

/** One partition of a deleteRecords call: delete its records below `offset` (-1: the high watermark). */
export interface RecordsToDelete {
  topic: string;
  partition: number;
  offset: number;
}

/** A partition after deleteRecords: the smallest log start offset over its in-sync replicas. */
export interface DeletedRecords {
  topic: string;
  partition: number;
  lowWatermark: number;
}

/** Default wait of deleteRecords for the in-sync followers (Kafka's). */
export const DELETE_RECORDS_TIMEOUT_MS = 30_000;

export interface AdminOptions {
  retry?: Partial<Omit<RetryOptions, 'signal'>>;
}

export class Admin {
  readonly cluster: Cluster;
  private readonly ownsCluster: boolean;
  private readonly retryOptions: Partial<RetryOptions>;

  constructor(cluster: Cluster | ClusterOptions, options: AdminOptions = {}) {
    this.ownsCluster = !(cluster instanceof Cluster);
    this.cluster = cluster instanceof Cluster ? cluster : new Cluster(cluster);
    this.retryOptions = { ...DEFAULT_RETRY, ...options.retry };
  }

  /** Creates a topic; TOPIC_ALREADY_EXISTS when it exists. Returns its partitions and leaders. */
  async createTopic(name: string, options: CreateTopicOptions): Promise<TopicDescription> {
    const r = await this.call<CreateTopicResponse>((c, o, cb) =>
      c.CreateTopic(
        {
          name,
          partitions: options.partitions,
          replication_factor: options.replicationFactor ?? 0,
          configs: options.configs ?? {},
          validate_only: options.validateOnly ?? false,
        },
        o,
        cb,
      ),
    );
    this.cluster.invalidate(name);
    if (!r.topic) throw new TideError('UNKNOWN', `CreateTopic ${name} answered without the topic`);
    return toTopicDescription(r.topic);
  }

  async deleteTopic(name: string): Promise<void> {
    await this.call<DeleteTopicResponse>((c, o, cb) => c.DeleteTopic({ name }, o, cb));
    this.cluster.invalidate(name);
  }

  async listTopics(options: { includeInternal?: boolean } = {}): Promise<string[]> {
    const r = await this.call<ListTopicsResponse>((c, o, cb) =>
      c.ListTopics({ include_internal: options.includeInternal ?? false }, o, cb),
    );
    return r.names;
  }

  /** Partitions, every config with its effective value, and per-partition offsets. */
  async describeTopic(name: string): Promise<TopicDetails> {
    const r = await this.call<DescribeTopicResponse>((c, o, cb) => c.DescribeTopic({ name }, o, cb));
    if (!r.topic)
      throw new TideError('UNKNOWN_TOPIC', `topic ${name} does not exist`, { context: { topic: name } });
    return {
      topic: toTopicDescription(r.topic),
      configs: r.configs.map(toConfigEntry),
      status: r.status.map((s) => ({
        partition: s.partition,
        logStartOffset: s.log_start_offset,
        highWatermark: s.high_watermark,
        lastStableOffset: s.last_stable_offset,
        logEndOffset: s.log_end_offset,
        sizeBytes: s.size_bytes,
        dirtyRatio: s.dirty_ratio,
      })),
    };
  }

  async describeConfigs(topic: string): Promise<ConfigEntry[]> {
    const r = await this.call<DescribeConfigsResponse>((c, o, cb) => c.DescribeConfigs({ topic }, o, cb));
    return r.configs.map(toConfigEntry);
  }

  /**
   * Grows a topic to `count` partitions (never shrinks: INVALID_PARTITIONS). Records stay where
   * they are, but keyed records may go to a different partition from now on.
   */
  async createPartitions(
    topic: string,
    count: number,
    options: { validateOnly?: boolean } = {},
  ): Promise<TopicDescription> {
    const r = await this.call<CreatePartitionsResponse>((c, o, cb) =>
      c.CreatePartitions({ topic, count, validate_only: options.validateOnly ?? false }, o, cb),
    );
    this.cluster.invalidate(topic);
    if (!r.topic) throw new TideError('UNKNOWN', `CreatePartitions ${topic} answered without the topic`);
    return toTopicDescription(r.topic);
  }

  /** Starts (or, with an empty replica list, cancels) replica moves; the plan is validated whole. */
  async alterPartitionReassignments(
    plan: { topic: string; partition: number; replicas: number[] }[],
    options: { validateOnly?: boolean } = {},
  ): Promise<{ accepted: number; unchanged: number }> {
    return this.call<AlterPartitionReassignmentsResponse>((c, o, cb) =>
      c.AlterPartitionReassignments(
        { reassignments: plan, validate_only: options.validateOnly ?? false },
        o,
        cb,
      ),
    );
  }

  /** Moves in flight: replicas now, adding, removing, target, and which adding ones caught up. */
  async listPartitionReassignments(topics: string[] = []): Promise<PartitionMove[]> {
    const r = await this.call<ListPartitionReassignmentsResponse>((c, o, cb) =>
      c.ListPartitionReassignments({ topics }, o, cb),
    );
    return r.reassignments.map((m) => ({
      topic: m.topic,
      partition: m.partition,
      replicas: m.replicas,
      adding: m.adding,
      removing: m.removing,
      target: m.target,
      caughtUp: m.caught_up,
      startedAtMs: m.started_at_ms,
      origin: m.origin,
    }));
  }

  /** Starts moving every replica off a broker; `remainingReplicas` 0 = it can be removed. */
  decommissionBroker(brokerId: number): Promise<DecommissionStatus> {
    return this.decommissionCall('decommission', brokerId);
  }

  /** Stops a decommission (its unfinished moves are cancelled). */
  recommissionBroker(brokerId: number): Promise<DecommissionStatus> {
    return this.decommissionCall('recommission', brokerId);
  }

  describeDecommission(brokerId: number): Promise<DecommissionStatus> {
    return this.decommissionCall('describe', brokerId);
  }

  private async decommissionCall(
    what: 'decommission' | 'recommission' | 'describe',
    brokerId: number,
  ): Promise<DecommissionStatus> {
    const r = await this.call<WireDecommissionStatus>((c, o, cb) => {
      const req = { broker_id: brokerId };
      if (what === 'decommission') return c.DecommissionBroker(req, o, cb);
      if (what === 'recommission') return c.RecommissionBroker(req, o, cb);
      return c.DescribeDecommission(req, o, cb);
    });
    return {
      brokerId: r.broker_id,
      decommissioning: r.decommissioning,
      remainingReplicas: r.remaining_replicas,
      remainingLeaders: r.remaining_leaders,
    };
  }

  /** Sets and deletes config keys, validated as a whole. Returns the resulting configs. */
  async alterConfigs(topic: string, options: AlterConfigsOptions): Promise<ConfigEntry[]> {
    const r = await this.call<AlterConfigsResponse>((c, o, cb) =>
      c.AlterConfigs(
        {
          topic,
          set: options.set ?? {},
          delete: options.delete ?? [],
          validate_only: options.validateOnly ?? false,
        },
        o,
        cb,
      ),
    );
    return r.configs.map(toConfigEntry);
  }

  async describeCluster(): Promise<ClusterDescription> {
    const r = await this.call<DescribeClusterResponse>((c, o, cb) => c.DescribeCluster({}, o, cb));
    return {
      clusterId: r.cluster_id,
      controllerId: r.controller_id,
      brokers: r.brokers.map((b) => ({
        id: b.id,
        host: b.host,
        port: b.port,
        rack: b.rack,
        address: `${b.host}:${b.port}`,
      })),
    };
  }

  /** Adds ACL bindings (an existing one is kept as is); returns how many were new. */
  async createAcls(acls: AclBinding[]): Promise<number> {
    const r = await this.call<CreateAclsResponse>((c, o, cb) =>
      c.CreateAcls({ acls: acls.map(toWireAcl) }, o, cb),
    );
    return r.created;
  }

  /** The bindings matching the filter (all without one). */
  async describeAcls(filter: AclFilter = {}): Promise<Required<AclBinding>[]> {
    const r = await this.call<DescribeAclsResponse>((c, o, cb) =>
      c.DescribeAcls({ filter: toWireAcl(filter) }, o, cb),
    );
    return r.acls.map(fromWireAcl);
  }

  /** Removes every binding matching one of the filters; returns the removed bindings. */
  async deleteAcls(filters: AclFilter[]): Promise<Required<AclBinding>[]> {
    const r = await this.call<DeleteAclsResponse>((c, o, cb) =>
      c.DeleteAcls({ filters: filters.map(toWireAcl) }, o, cb),
    );
    return r.deleted.map(fromWireAcl);
  }

  /**
   * Sets (and removes) quota values of one entity; returns its quotas afterwards (undefined once
   * it has none left).
   */
  async alterClientQuotas(
    entity: QuotaEntity,
    set: Partial<Record<QuotaKey, number>>,
    remove: QuotaKey[] = [],
  ): Promise<ClientQuota | undefined> {
    const r = await this.call<AlterClientQuotasResponse>((c, o, cb) =>
      c.AlterClientQuotas(
        {
          alterations: [
            {
              entity: { user: entity.user ?? '', client_id: entity.clientId ?? '' },
              set: Object.entries(set).map(([key, value]) => ({ key, value })),
              remove,
            },
          ],
        },
        o,
        cb,
      ),
    );
    return r.quotas.map(fromWireQuota)[0];
  }

  /** The quotas whose entity matches the filter (an absent part matches any). */
  async describeClientQuotas(filter: QuotaEntity = {}): Promise<ClientQuota[]> {
    const r = await this.call<DescribeClientQuotasResponse>((c, o, cb) =>
      c.DescribeClientQuotas(
        { filter: { user: filter.user ?? '', client_id: filter.clientId ?? '' } },
        o,
        cb,
      ),
    );
    return r.quotas.map(fromWireQuota);
  }

  /**
   * Kafka's deleteRecords: moves each partition's log start offset up to its `offset` (-1: the
   * high watermark), so the records below it are gone — reads there fail with
   * OFFSET_OUT_OF_RANGE and whole segments below it are deleted, on the leader and then on its
   * followers. Each partition's request goes to its leader, in parallel; resolves once every
   * leader's in-sync followers followed (within `timeoutMs`, default 30 s). An offset above the
   * high watermark fails with OFFSET_OUT_OF_RANGE; one at or below the log start changes
   * nothing. Rejects with the first failure (the other partitions may be done: retrying is safe).
   */
  async deleteRecords(
    partitions: RecordsToDelete[],
    options: { timeoutMs?: number } = {},
  ): Promise<DeletedRecords[]> {
    const timeoutMs = options.timeoutMs ?? DELETE_RECORDS_TIMEOUT_MS;
    return Promise.all(
      partitions.map(async ({ topic, partition, offset }) => {
        const r = await this.cluster.withLeader(
          { topic, partition },
          (address) =>
            this.cluster.calls.admin<DeleteRecordsResponse>(
              address,
              (c, o, cb) => c.DeleteRecords({ topic, partition, offset, timeout_ms: timeoutMs }, o, cb),
              this.cluster.calls.requestTimeoutMs + timeoutMs,
            ),
          this.retryOptions,
        );
        return { topic, partition, lowWatermark: r.low_watermark };
      }),
    );
  }

  /** Broker Metadata for the given topics (all when empty); also refreshes the client's cache. */
  async metadata(topics: string[] = []): Promise<ClusterMetadata> {
    return retry(() => this.cluster.fetchMetadata(topics), this.retryOptions, { clock: this.cluster.clock });
  }

  /** Closes the connections when the admin client owns its cluster. */
  async close(): Promise<void> {
    if (this.ownsCluster) this.cluster.close();
  }

  private call<T>(invoke: Invoke<AdminClient, T>): Promise<T> {
    return retry(
      () => this.cluster.withControlBroker((address) => this.cluster.calls.admin(address, invoke)),
      this.retryOptions,
      { clock: this.cluster.clock },
    );
  }
}

function toTopicDescription(t: TopicInfo): TopicDescription {
  return { name: t.name, topicId: t.topic_id, internal: t.internal, partitions: partitionsOf(t) };
}

function toWireAcl(a: AclFilter): WireAclBinding {
  return {
    principal: a.principal ?? '',
    resource_type: a.resourceType ?? '',
    pattern_type: a.patternType ?? '',
    name: a.name ?? '',
    operation: a.operation ?? '',
    permission: a.permission ?? '',
  };
}

function fromWireAcl(a: WireAclBinding): Required<AclBinding> {
  return {
    principal: a.principal,
    resourceType: a.resource_type as AclBinding['resourceType'],
    patternType: a.pattern_type as 'literal' | 'prefixed',
    name: a.name,
    operation: a.operation as AclBinding['operation'],
    permission: a.permission as 'allow' | 'deny',
  };
}

function fromWireQuota(q: WireClientQuota): ClientQuota {
  const entity: QuotaEntity = {};
  if (q.entity?.user) entity.user = q.entity.user;
  if (q.entity?.client_id) entity.clientId = q.entity.client_id;
  const values: ClientQuota['values'] = {};
  for (const v of q.values) values[v.key as QuotaKey] = v.value;
  return { entity, values };
}

function toConfigEntry(c: WireConfigEntry): ConfigEntry {
  return { name: c.name, value: c.value, isDefault: c.is_default };
}
