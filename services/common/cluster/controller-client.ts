/**
 * The client side of the controller, for brokers: follows the active controller through the
 * `/tide/<cluster>/controller` key (one read, then a watch), and calls its `tide.v1.Controller`
 * (AlterPartition, ControlledShutdown) and `tide.v1.Admin` services. It implements the broker's
 * `TopicAdmin` interface, so a broker hands its clients' Admin requests to the controller with it.
 *
 * Retries: a call that fails with NOT_CONTROLLER (a standby, or a controller that just lost
 * leadership), with a transport failure (BROKER_NOT_AVAILABLE: the controller is gone or
 * unreachable), with METADATA_UNAVAILABLE, or finds no controller at all, is tried again after an
 * exponential backoff — sooner when the controller key changes — up to `attempts` tries in all.
 * Other errors (FENCED_EPOCH, UNKNOWN_TOPIC, INVALID_*, ...) are thrown at once. A retried write
 * whose first try succeeded but whose answer was lost reports what the second try found
 * (TOPIC_ALREADY_EXISTS, FENCED_EPOCH): callers refresh metadata, as after any such error.
 */
import * as grpc from '@grpc/grpc-js';
import { systemClock, type Clock, type Timer } from '../clock';
import { TideError } from '../errors';
import type { Logger } from '../logger';
import { MetadataKeys } from '../metadata/keys';
import type { MetadataStore, Watch } from '../metadata/store';
import { internalProto, tideProto } from '../grpc/proto';
import { channelOptions } from '../grpc/server';
import { fromGrpcError } from '../grpc/status';
import type { AdminClient } from '../grpc/generated/tide/v1/Admin';
import type { ControllerClient as ControllerGrpcClient } from '../grpc/generated/tide/v1/Controller';
import type { AlterPartitionResponse } from '../grpc/generated/tide/v1/AlterPartitionResponse';
import type { ControlledShutdownResponse } from '../grpc/generated/tide/v1/ControlledShutdownResponse';
import type { ReportReplicaOfflineResponse } from '../grpc/generated/tide/v1/ReportReplicaOfflineResponse';
import type { ReportLeaderUnreachableResponse } from '../grpc/generated/tide/v1/ReportLeaderUnreachableResponse';
import type { CreateTopicResponse } from '../grpc/generated/tide/v1/CreateTopicResponse';
import type { CreateInternalTopicResponse } from '../grpc/generated/tide/v1/CreateInternalTopicResponse';
import type { DeleteTopicResponse } from '../grpc/generated/tide/v1/DeleteTopicResponse';
import type { ListTopicsResponse } from '../grpc/generated/tide/v1/ListTopicsResponse';
import type { DescribeTopicResponse } from '../grpc/generated/tide/v1/DescribeTopicResponse';
import type { DescribeConfigsResponse } from '../grpc/generated/tide/v1/DescribeConfigsResponse';
import type { AlterConfigsResponse } from '../grpc/generated/tide/v1/AlterConfigsResponse';
import type { DescribeClusterResponse } from '../grpc/generated/tide/v1/DescribeClusterResponse';
import type { ConfigEntry__Input } from '../grpc/generated/tide/v1/ConfigEntry';
import type { PartitionInfo } from '../grpc/generated/tide/v1/PartitionInfo';
import type { TopicInfo__Input } from '../grpc/generated/tide/v1/TopicInfo';
import type { CreateTopicSpec, TopicAdmin } from './admin-operations';
import type { ElasticAdmin, ReassignmentEntry, ReassignmentOutcome } from './elastic-operations';
import type { CreatePartitionsResponse } from '../grpc/generated/tide/v1/CreatePartitionsResponse';
import type { AlterPartitionReassignmentsResponse } from '../grpc/generated/tide/v1/AlterPartitionReassignmentsResponse';
import type { ListPartitionReassignmentsResponse } from '../grpc/generated/tide/v1/ListPartitionReassignmentsResponse';
import type { OngoingReassignment__Input } from '../grpc/generated/tide/v1/OngoingReassignment';
import type { DecommissionStatus } from '../grpc/generated/tide/v1/DecommissionStatus';
import type { ClusterDescription } from './admin-operations';
import { activeControllerOf, type ActiveController } from './controller-record';
import type { PartitionView } from './topic-watcher';

export const DEFAULT_CONTROLLER_CALL_ATTEMPTS = 12;
export const DEFAULT_CONTROLLER_BACKOFF_MS = 100;
export const DEFAULT_CONTROLLER_BACKOFF_MAX_MS = 2_000;
export const DEFAULT_CONTROLLER_CALL_TIMEOUT_MS = 15_000;

export interface ControllerClientOptions {
  store: MetadataStore;
  clusterName: string;
  logger: Logger;
  /** Drives the backoff between tries. */
  clock: Clock;
  /** Tries per call, the first included; default DEFAULT_CONTROLLER_CALL_ATTEMPTS (~15 s of backoff). */
  attempts?: number;
  /** First backoff, doubled per try up to backoffMaxMs. */
  backoffMs?: number;
  backoffMaxMs?: number;
  /** Deadline of one gRPC call (real time); default DEFAULT_CONTROLLER_CALL_TIMEOUT_MS. */
  callTimeoutMs?: number;
  /** TLS to the controller (the service's ServiceSecurity.channel); plain text by default. */
  credentials?: grpc.ChannelCredentials;
}

/** An ISR change a leader proposes to the controller (the AlterPartition RPC). */
export interface IsrProposal {
  brokerId: number;
  topic: string;
  partition: number;
  leaderEpoch: number;
  partitionEpoch: number;
  newIsr: number[];
}

interface Connection {
  address: string;
  controller: ControllerGrpcClient;
  admin: AdminClient;
}

const RETRIED = new Set(['NOT_CONTROLLER', 'BROKER_NOT_AVAILABLE', 'METADATA_UNAVAILABLE']);

export class ControllerClient implements TopicAdmin, Required<ElasticAdmin> {
  private readonly keys: MetadataKeys;
  private readonly logger: Logger;
  private current?: ActiveController;
  private connection?: Connection;
  private watch?: Watch;
  private starting?: Promise<void>;
  private readSeq = 0;
  private changeWaiters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: ControllerClientOptions) {
    this.keys = new MetadataKeys(options.clusterName);
    this.logger = options.logger.child({ component: 'controller-client' });
  }

  /** Reads the controller key and starts watching it. Calls do this themselves when needed. */
  start(): Promise<void> {
    this.starting ??= this.follow().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  /** The active controller as last seen, if any. */
  activeController(): ActiveController | undefined {
    return this.current;
  }

  /** The active controller's id, or -1 when none is known (for metadata responses). */
  controllerId(): number {
    return this.current?.controllerId ?? -1;
  }

  /** Proposes a new ISR; answers the partition's state after the change. */
  async alterPartition(request: IsrProposal): Promise<PartitionView> {
    const response = await this.call('AlterPartition', (c, options) =>
      promised<AlterPartitionResponse>((cb) =>
        c.controller.AlterPartition(
          {
            broker_id: request.brokerId,
            topic: request.topic,
            partition: request.partition,
            leader_epoch: request.leaderEpoch,
            partition_epoch: request.partitionEpoch,
            new_isr: request.newIsr,
          },
          options,
          cb,
        ),
      ),
    );
    return fromPartitionInfo(required(response.partition, 'partition'));
  }

  /** Asks the controller to move this broker's leaderships away; answers what it still leads. */
  async controlledShutdown(brokerId: number): Promise<{ remaining: { topic: string; partition: number }[] }> {
    const response = await this.call('ControlledShutdown', (c, options) =>
      promised<ControlledShutdownResponse>((cb) =>
        c.controller.ControlledShutdown({ broker_id: brokerId }, options, cb),
      ),
    );
    return { remaining: response.remaining.map((p) => ({ topic: p.topic, partition: p.partition })) };
  }

  /** Tells the controller this broker has had no answer from leader broker `leaderId` for `forMs`. */
  async reportLeaderUnreachable(brokerId: number, leaderId: number, forMs: number): Promise<void> {
    await this.call('ReportLeaderUnreachable', (c, options) =>
      promised<ReportLeaderUnreachableResponse>((cb) =>
        c.controller.ReportLeaderUnreachable(
          { broker_id: brokerId, leader_id: leaderId, unreachable_for_ms: forMs },
          options,
          cb,
        ),
      ),
    );
  }

  /** Tells the controller this broker's log of topic-partition failed (the replica is offline here). */
  async reportReplicaOffline(brokerId: number, topic: string, partition: number): Promise<void> {
    await this.call('ReportReplicaOffline', (c, options) =>
      promised<ReportReplicaOfflineResponse>((cb) =>
        c.controller.ReportReplicaOffline({ broker_id: brokerId, topic, partition }, options, cb),
      ),
    );
  }

  /** Creates one of Tide's own topics (internal); TOPIC_ALREADY_EXISTS when it exists. */
  async createInternalTopic(spec: CreateTopicSpec): Promise<TopicInfo__Input> {
    const response = await this.call('CreateInternalTopic', (c, options) =>
      promised<CreateInternalTopicResponse>((cb) =>
        c.controller.CreateInternalTopic(
          {
            name: spec.name,
            partitions: spec.partitions,
            replication_factor: spec.replicationFactor,
            configs: spec.configs,
          },
          options,
          cb,
        ),
      ),
    );
    return required(response.topic, 'topic');
  }

  // ---- TopicAdmin ----

  async createTopic(spec: CreateTopicSpec): Promise<TopicInfo__Input> {
    const response = await this.call('CreateTopic', (c, options) =>
      promised<CreateTopicResponse>((cb) =>
        c.admin.CreateTopic(
          {
            name: spec.name,
            partitions: spec.partitions,
            replication_factor: spec.replicationFactor,
            configs: spec.configs,
            validate_only: spec.validateOnly,
          },
          options,
          cb,
        ),
      ),
    );
    return required(response.topic, 'topic');
  }

  async deleteTopic(name: string): Promise<void> {
    await this.call('DeleteTopic', (c, options) =>
      promised<DeleteTopicResponse>((cb) => c.admin.DeleteTopic({ name }, options, cb)),
    );
  }

  async listTopics(includeInternal: boolean): Promise<string[]> {
    const response = await this.call('ListTopics', (c, options) =>
      promised<ListTopicsResponse>((cb) =>
        c.admin.ListTopics({ include_internal: includeInternal }, options, cb),
      ),
    );
    return response.names;
  }

  async describeTopic(name: string): Promise<{ topic: TopicInfo__Input; configs: ConfigEntry__Input[] }> {
    const response = await this.call('DescribeTopic', (c, options) =>
      promised<DescribeTopicResponse>((cb) => c.admin.DescribeTopic({ name }, options, cb)),
    );
    return { topic: required(response.topic, 'topic'), configs: response.configs };
  }

  async describeConfigs(name: string): Promise<ConfigEntry__Input[]> {
    const response = await this.call('DescribeConfigs', (c, options) =>
      promised<DescribeConfigsResponse>((cb) => c.admin.DescribeConfigs({ topic: name }, options, cb)),
    );
    return response.configs;
  }

  async alterConfigs(
    name: string,
    set: Record<string, string>,
    remove: string[],
    validateOnly: boolean,
  ): Promise<ConfigEntry__Input[]> {
    const response = await this.call('AlterConfigs', (c, options) =>
      promised<AlterConfigsResponse>((cb) =>
        c.admin.AlterConfigs({ topic: name, set, delete: remove, validate_only: validateOnly }, options, cb),
      ),
    );
    return response.configs;
  }

  async describeCluster(): Promise<ClusterDescription> {
    const response = await this.call('DescribeCluster', (c, options) =>
      promised<DescribeClusterResponse>((cb) => c.admin.DescribeCluster({}, options, cb)),
    );
    return {
      clusterId: response.cluster_id,
      controllerId: response.controller_id,
      brokers: response.brokers,
    };
  }

  // ---- ElasticAdmin ----

  async createPartitions(topic: string, count: number, validateOnly: boolean): Promise<TopicInfo__Input> {
    const response = await this.call('CreatePartitions', (c, options) =>
      promised<CreatePartitionsResponse>((cb) =>
        c.admin.CreatePartitions({ topic, count, validate_only: validateOnly }, options, cb),
      ),
    );
    return required(response.topic, 'topic');
  }

  async alterReassignments(
    entries: ReassignmentEntry[],
    validateOnly: boolean,
  ): Promise<ReassignmentOutcome> {
    const response = await this.call('AlterPartitionReassignments', (c, options) =>
      promised<AlterPartitionReassignmentsResponse>((cb) =>
        c.admin.AlterPartitionReassignments(
          { reassignments: entries, validate_only: validateOnly },
          options,
          cb,
        ),
      ),
    );
    return { accepted: response.accepted, unchanged: response.unchanged };
  }

  async listReassignments(topics: string[]): Promise<OngoingReassignment__Input[]> {
    const response = await this.call('ListPartitionReassignments', (c, options) =>
      promised<ListPartitionReassignmentsResponse>((cb) =>
        c.admin.ListPartitionReassignments({ topics }, options, cb),
      ),
    );
    return response.reassignments;
  }

  decommissionBroker(brokerId: number): Promise<DecommissionStatus> {
    return this.call('DecommissionBroker', (c, options) =>
      promised<DecommissionStatus>((cb) => c.admin.DecommissionBroker({ broker_id: brokerId }, options, cb)),
    );
  }

  recommissionBroker(brokerId: number): Promise<DecommissionStatus> {
    return this.call('RecommissionBroker', (c, options) =>
      promised<DecommissionStatus>((cb) => c.admin.RecommissionBroker({ broker_id: brokerId }, options, cb)),
    );
  }

  describeDecommission(brokerId: number): Promise<DecommissionStatus> {
    return this.call('DescribeDecommission', (c, options) =>
      promised<DecommissionStatus>((cb) =>
        c.admin.DescribeDecommission({ broker_id: brokerId }, options, cb),
      ),
    );
  }

  /** Stops following the controller and closes the connection; pending retries fail. */
  async close(): Promise<void> {
    this.closed = true;
    await this.watch?.cancel().catch(() => undefined);
    this.watch = undefined;
    this.connection?.controller.close();
    this.connection?.admin.close();
    this.connection = undefined;
    this.wakeWaiters();
  }

  // ---- following the controller key ----

  private async follow(): Promise<void> {
    const key = this.keys.controller;
    const range = await this.options.store.getPrefix(key);
    this.update(range.kvs.find((kv) => kv.key === key));
    this.watch = await this.options.store.watchPrefix(
      key,
      range.revision + 1,
      (events) => {
        if (events.some((e) => e.key === key)) void this.reread();
      },
      (err) => {
        this.logger.warn({ err }, 'controller key watch broke; following it again');
        this.watch = undefined;
        this.starting = undefined;
        if (!this.closed)
          void this.start().catch((e: unknown) => this.logger.warn({ err: e }, 'cannot follow'));
      },
    );
  }

  /** Re-reads the key (a watch event carries no createRevision, the epoch). */
  private async reread(): Promise<void> {
    const seq = ++this.readSeq;
    try {
      const kv = await this.options.store.get(this.keys.controller);
      if (seq === this.readSeq && !this.closed) this.update(kv);
    } catch (err) {
      this.logger.warn({ err }, 'cannot read the controller key');
    }
  }

  private update(kv: Parameters<typeof activeControllerOf>[0] | undefined): void {
    const next = kv && activeControllerOf(kv);
    const before = this.current;
    this.current = next;
    if (before?.epoch !== next?.epoch || before?.address !== next?.address) {
      this.logger.info({ controller: next ?? null }, 'active controller changed');
      this.wakeWaiters();
    }
  }

  private wakeWaiters(): void {
    const waiters = this.changeWaiters;
    this.changeWaiters = [];
    for (const wake of waiters) wake();
  }

  // ---- calls ----

  private connect(address: string): Connection {
    if (this.connection?.address === address) return this.connection;
    this.connection?.controller.close();
    this.connection?.admin.close();
    const credentials = this.options.credentials ?? grpc.credentials.createInsecure();
    this.connection = {
      address,
      controller: new (internalProto().controller.Controller)(address, credentials, channelOptions()),
      admin: new (tideProto().Admin)(address, credentials, channelOptions()),
    };
    return this.connection;
  }

  private async call<T>(
    method: string,
    invoke: (c: Connection, options: grpc.CallOptions) => Promise<T>,
  ): Promise<T> {
    const attempts = this.options.attempts ?? DEFAULT_CONTROLLER_CALL_ATTEMPTS;
    await this.start();
    for (let attempt = 1; ; attempt++) {
      if (this.closed)
        throw new TideError('BROKER_NOT_AVAILABLE', 'the controller client is closed', { retriable: false });
      try {
        const target = this.current;
        if (!target?.address) {
          throw new TideError(
            'NOT_CONTROLLER',
            target
              ? `the active controller ${target.controllerId} has not published its address`
              : 'no active controller',
          );
        }
        // The gRPC deadline is real time, whatever clock drives the backoff.
        const deadline =
          systemClock.nowMs() + (this.options.callTimeoutMs ?? DEFAULT_CONTROLLER_CALL_TIMEOUT_MS);
        return await invoke(this.connect(target.address), { deadline });
      } catch (err) {
        const error = fromGrpcError(err);
        if (!RETRIED.has(error.code) || attempt >= attempts || this.closed) throw error;
        const delayMs = Math.min(
          this.options.backoffMaxMs ?? DEFAULT_CONTROLLER_BACKOFF_MAX_MS,
          (this.options.backoffMs ?? DEFAULT_CONTROLLER_BACKOFF_MS) * 2 ** (attempt - 1),
        );
        this.logger.debug(
          { method, attempt, delayMs, code: error.code, msg: error.message },
          'retrying controller call',
        );
        // The watch may lag (or this process may have been paused): look at the key again.
        void this.reread();
        await this.waitForChange(delayMs);
      }
    }
  }

  /** Resolves after delayMs, or sooner when the active controller changes or the client closes. */
  private waitForChange(delayMs: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: Timer | undefined = undefined;
      const done = () => {
        timer?.cancel();
        this.changeWaiters = this.changeWaiters.filter((w) => w !== done);
        resolve();
      };
      timer = this.options.clock.setTimeout(done, delayMs);
      this.changeWaiters.push(done);
    });
  }
}

/** Adapts a callback-style grpc-js call to a promise. */
function promised<Res>(
  invoke: (callback: (err: grpc.ServiceError | null, response?: Res) => void) => void,
): Promise<Res> {
  return new Promise((resolve, reject) =>
    invoke((err, response) => (err ? reject(err) : resolve(response as Res))),
  );
}

function required<T>(value: T | null | undefined, field: string): T {
  if (value === null || value === undefined)
    throw new TideError('UNKNOWN', `the controller's answer has no ${field}`);
  return value;
}

function fromPartitionInfo(info: PartitionInfo): PartitionView {
  return {
    partition: info.partition,
    leader: info.leader,
    leaderEpoch: info.leader_epoch,
    partitionEpoch: info.partition_epoch,
    replicas: [...info.replicas],
    isr: [...info.isr],
  };
}
