/**
 * A running controller instance: the election, the reconciler, and the gRPC server with
 * `tide.v1.Controller` and `tide.v1.Admin`. Every instance serves gRPC; only the active one
 * answers (standbys answer NOT_CONTROLLER), and only the active one writes, each write fenced by
 * its epoch (see election.ts). This file composes the parts and holds the RPC operations that
 * read, decide (partition-leadership.ts) and write (partition-store.ts).
 */
import { connectionLimitsOf } from '../common/service-config-keys';
import type { Clock } from '../common/clock';
import { TideError } from '../common/errors';
import { echo } from '../common/echo';
import type { Logger } from '../common/logger';
import { MetadataKeys } from '../common/metadata/keys';
import type { MetadataStore } from '../common/metadata/store';
import { internalProto, tideProto } from '../common/grpc/proto';
import { startServer, stopServer, type TideServer } from '../common/grpc/server';
import type {
  ClusterDescription,
  CreateTopicSpec,
  InternalTopicCreator,
  TopicAdmin,
} from '../common/cluster/admin-operations';
import type { TopicInfo__Input } from '../common/grpc/generated/tide/v1/TopicInfo';
import { controllerAdminHandlers } from './api/admin-service';
import { internalTopicCreator, topicAdmin } from './topic-admin';
import { controllerHandlers } from './api/controller-service';
import { BrokerRegistry } from '../common/cluster/broker-registry';
import { ensureClusterId } from '../common/cluster/cluster-id';
import type { ControllerConfig } from './config';
import { ControllerElection, type ElectionEvent } from './election';
import {
  controlledShutdownPartition,
  replicaOfflinePartition,
  validateAlterPartition,
  type AlterPartitionProposal,
  type BrokerLiveness,
} from './partition-leadership';
import { readPartition, readPartitions, writePartitions, type PartitionWrite } from './partition-store';
import { Reconciler, emptyStats, type LeadershipStats } from './reconciler';
import { Reassigner, emptyReassignmentStats, type ReassignmentStats } from './reassigner';
import { elasticAdmin } from './elastic-admin';
import { balancePlanner } from './balancer';
import { clusterHealth, type ClusterHealth } from './cluster-health';
import type { ElasticAdmin, ReassignmentAdmin } from '../common/cluster/elastic-operations';
import { TopicManager } from './topic-manager';
import { UnreachableReports } from './unreachable-reports';
import { validateTopicName } from '../common/cluster/topic-name';
import type { PartitionView } from '../common/cluster/topic-watcher';

/** Conflict retries of AlterPartition and ControlledShutdown. */
export const RPC_CONFLICT_ATTEMPTS = 5;

import type { ServiceSecurity } from '../common/security/service-security';
import { NO_AUTH, auditLogger, type ServiceAuth } from '../common/security/auth/service-auth';
import { startServiceAccess } from '../common/security/service-access';
import { aclAdminHandlers } from '../common/security/auth/acl-admin-service';
import { quotaAdminHandlers } from '../common/security/quota/quota-admin-service';
import { appMetadataAdminHandlers } from '../common/app-metadata/app-metadata-admin-service';
export interface ControllerNodeDeps {
  store: MetadataStore;
  clock: Clock;
  logger: Logger;
  /** TLS for the listener; plain text by default. */
  security?: ServiceSecurity;
}

/** Counters a controller exposes (cumulative over its activations). */
export interface ControllerStats extends LeadershipStats, ReassignmentStats {
  /** Times this instance became active. */
  activations: number;
  /** Writes of this instance rejected by fencing (each one made it step down). */
  fencedWrites: number;
  /** Leadership moves and ISR removals done for controlled shutdowns. */
  controlledShutdownMoves: number;
  /** ISR changes accepted from AlterPartition. */
  isrChanges: number;
}

export class ControllerNode {
  readonly election: ControllerElection;
  /** Fenced topic administration (throws NOT_CONTROLLER on a standby). */
  readonly topics: TopicManager;
  private readonly keys: MetadataKeys;
  private readonly registry: BrokerRegistry;
  private readonly reconciler: Reconciler;
  private readonly reassigner: Reassigner;
  private readonly elastic: Required<ElasticAdmin>;
  private readonly logger: Logger;
  private readonly statsValue: ControllerStats = {
    ...emptyStats(),
    ...emptyReassignmentStats(),
    activations: 0,
    fencedWrites: 0,
    controlledShutdownMoves: 0,
    isrChanges: 0,
  };
  private readonly shuttingDown = new Set<number>();
  private readonly unreachable: UnreachableReports;
  private server?: TideServer;
  private auth: ServiceAuth = NO_AUTH;
  private clusterId?: string;
  private activation: Promise<void> = Promise.resolve();
  private readonly adminOps: TopicAdmin;
  private readonly internalTopics: InternalTopicCreator;
  private stopped = false;

  private constructor(
    private readonly config: ControllerConfig,
    private readonly deps: ControllerNodeDeps,
    /** host:port brokers reach this instance at. */
    readonly address: string,
  ) {
    const { store, clock } = deps;
    this.logger = deps.logger.child({ controllerId: config.controllerId });
    this.keys = new MetadataKeys(config.clusterName);
    this.unreachable = new UnreachableReports(clock, Math.max(3_000, config.leaseTtlMs));
    const [host, port] = splitAddress(address);
    this.election = new ControllerElection({
      store,
      clusterName: config.clusterName,
      controllerId: config.controllerId,
      host,
      port,
      clock,
      logger: this.logger,
      leaseTtlMs: config.leaseTtlMs,
    });
    this.registry = new BrokerRegistry({
      store,
      clusterName: config.clusterName,
      clock,
      logger: this.logger,
    });
    this.topics = new TopicManager({
      store,
      clusterName: config.clusterName,
      clock,
      logger: this.logger,
      defaultReplicationFactor: config.defaultReplicationFactor,
      liveBrokers: this.registry,
      // New replicas never go to a broker being decommissioned.
      placementBrokers: async () => {
        const [brokers, leaving] = await Promise.all([
          this.registry.listBrokers(),
          this.reassigner.decommissioned(),
        ]);
        return brokers.filter((b) => !leaving.has(b.id));
      },
      fencing: () => this.election.fencing(),
    });
    this.reconciler = new Reconciler({
      store,
      keys: this.keys,
      clock,
      logger: this.logger,
      registry: this.registry,
      topics: this.topics,
      fencing: () => this.election.fencing(),
      onFenced: (err) => this.onFenced(err),
      shuttingDown: () => this.shuttingDown,
      unreachable: () => this.unreachable.current(),
      onBrokers: (update) => {
        // A broker that left (or came back) is no longer shutting down.
        for (const id of update.removed) this.shuttingDown.delete(id);
        for (const b of update.added) this.shuttingDown.delete(b.id);
      },
      leaderImbalanceCheckIntervalMs: config.leaderImbalanceCheckIntervalMs,
      stats: this.statsValue,
    });
    this.reassigner = new Reassigner({
      store,
      keys: this.keys,
      clock,
      logger: this.logger,
      registry: this.registry,
      topics: this.topics,
      fencing: () => this.election.fencing(),
      onFenced: (err) => this.onFenced(err),
      shuttingDown: () => this.shuttingDown,
      intervalMs: config.reassignmentCheckIntervalMs,
      maxConcurrentMoves: config.maxConcurrentMoves,
      stats: this.statsValue,
      planner: config.balancerEnabled
        ? balancePlanner({
            thresholdPercent: config.balancerThresholdPercent,
            clock,
            brokerGraceMs: config.balancerBrokerGraceMs,
          })
        : undefined,
    });
    this.elastic = this.guardedElastic(elasticAdmin(this.topics, this.reassigner));
    this.adminOps = this.guardedAdmin(topicAdmin(this.topics));
    this.internalTopics = internalTopicCreator(this.topics);
    this.election.onChange((event) => this.onElection(event));
  }

  /**
   * Starts the gRPC server (health '' SERVING at once; 'tide.v1.Controller' and 'tide.v1.Admin'
   * SERVING only while active) and joins the election. Resolves after the first campaign attempt:
   * the instance is then active or standing by.
   */
  static async start(config: ControllerConfig, deps: ControllerNodeDeps): Promise<ControllerNode> {
    // The handlers are registered before the node exists; they reach it through this reference.
    const ref: { node?: ControllerNode } = {};
    const auth = await startServiceAccess(config, deps);
    const server = await startServer({
      interceptors: auth.interceptors,
      host: config.host,
      port: config.port,
      connections: connectionLimitsOf(config),
      healthPort: config.healthPort,
      healthServices: ['tide.v1.Controller', 'tide.v1.Admin'],
      ...(deps.security ? { credentials: deps.security.server } : {}),
      register: (s) => {
        s.addService(
          internalProto().controller.Controller.service,
          controllerHandlers(
            {
              alterPartition: (topic, partition, proposal) =>
                ref.node!.alterPartition(topic, partition, proposal),
              controlledShutdown: (brokerId) => ref.node!.controlledShutdown(brokerId),
              createInternalTopic: (spec) => ref.node!.createInternalTopic(spec),
              reportLeaderUnreachable: (brokerId, leaderId, forMs) =>
                ref.node!.reportLeaderUnreachable(brokerId, leaderId, forMs),
              reportReplicaOffline: (brokerId, topic, partition) =>
                ref.node!.reportReplicaOffline(brokerId, topic, partition),
            },
            deps.logger,
          ),
        );
        s.addService(tideProto().Admin.service, {
          ...aclAdminHandlers({
            store: deps.store,
            clusterName: config.clusterName,
            edge: deps.logger,
            audit: auditLogger(deps.logger),
          }),
          ...quotaAdminHandlers({
            store: deps.store,
            clusterName: config.clusterName,
            edge: deps.logger,
            audit: auditLogger(deps.logger),
          }),
          ...appMetadataAdminHandlers({
            store: deps.store,
            clusterName: config.clusterName,
            clock: deps.clock,
            edge: deps.logger,
          }),
          ...controllerAdminHandlers({
            topics: {
              createTopic: (spec) => ref.node!.admin.createTopic(spec),
              deleteTopic: (name) => ref.node!.admin.deleteTopic(name),
              listTopics: (internal) => ref.node!.admin.listTopics(internal),
              describeTopic: (name) => ref.node!.admin.describeTopic(name),
              describeConfigs: (name) => ref.node!.admin.describeConfigs(name),
              alterConfigs: (name, set, remove, validateOnly) =>
                ref.node!.admin.alterConfigs(name, set, remove, validateOnly),
            },
            describeCluster: () => ref.node!.describeCluster(),
            elastic: {
              createPartitions: (topic, count, validateOnly) =>
                ref.node!.elasticOps.createPartitions(topic, count, validateOnly),
              alterReassignments: (entries, validateOnly) =>
                ref.node!.elasticOps.alterReassignments(entries, validateOnly),
              listReassignments: (topics) => ref.node!.elasticOps.listReassignments(topics),
              decommissionBroker: (id) => ref.node!.elasticOps.decommissionBroker(id),
              recommissionBroker: (id) => ref.node!.elasticOps.recommissionBroker(id),
              describeDecommission: (id) => ref.node!.elasticOps.describeDecommission(id),
            },
            logger: deps.logger,
          }),
        });
      },
    });
    const host =
      config.advertisedHost ||
      (config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host);
    const node = new ControllerNode(config, deps, `${host}:${server.port}`);
    ref.node = node;
    node.server = server;
    node.auth = auth;
    try {
      server.health.setStatus('', 'SERVING');
      await node.election.start();
    } catch (err) {
      await stopServer(server.server, 0);
      await auth.close();
      throw err;
    }
    node.logger.info(
      { address: node.address, active: node.isActive, epoch: node.epoch },
      'controller started',
    );
    return node;
  }

  get id(): number {
    return this.config.controllerId;
  }

  get isActive(): boolean {
    return this.election.isActive;
  }

  /** The epoch held while active; 0 on a standby. */
  get epoch(): number {
    return this.election.epoch;
  }

  /** Leader elections outside the ISR so far (each may have lost acknowledged records). */
  get uncleanElections(): number {
    return this.statsValue.uncleanElections;
  }

  /** A copy of the counters. */
  stats(): ControllerStats {
    return { ...this.statsValue };
  }

  /** Partition health (cluster-health.ts) from the reconciler's view; undefined on a standby. */
  health(): ClusterHealth | undefined {
    if (!this.isActive) return undefined;
    return clusterHealth(this.reconciler.topics().values(), this.reconciler.liveBrokerIds());
  }

  /** The Admin API's topic operations (NOT_CONTROLLER on a standby). */
  get admin(): TopicAdmin {
    return this.adminOps;
  }

  /** Adding partitions, moves and decommissions (NOT_CONTROLLER on a standby). */
  get elasticOps(): Required<ElasticAdmin> {
    return this.elastic;
  }

  /** Creates one of Tide's own topics (NOT_CONTROLLER on a standby). */
  createInternalTopic(spec: CreateTopicSpec): Promise<TopicInfo__Input> {
    return this.fenced(() => this.internalTopics.createInternalTopic(spec));
  }

  /** Resolves when this instance is active (at once if it is). */
  whenActive(): Promise<number> {
    if (this.isActive) return Promise.resolve(this.epoch);
    return new Promise((resolve) =>
      this.election.onChange((event) => {
        if (event.state === 'active') resolve(event.epoch);
      }),
    );
  }

  /** Resolves once activation is done and the reconciler has nothing running or pending. */
  async settled(): Promise<void> {
    await this.activation;
    await this.reconciler.settled();
    await this.reassigner.settled();
  }

  /**
   * A leader's ISR proposal (see validateAlterPartition). Answers the partition's state after the
   * change. Throws NOT_CONTROLLER on a standby or when fenced, UNKNOWN_TOPIC, UNKNOWN_PARTITION,
   * FENCED_EPOCH, NOT_LEADER, INVALID_REQUEST.
   */
  async alterPartition(
    topic: string,
    partition: number,
    proposal: AlterPartitionProposal,
  ): Promise<PartitionView> {
    return this.fenced(async () => {
      validateTopicName(topic);
      for (let attempt = 1; ; attempt++) {
        this.requireActive();
        const stored = await readPartition(this.deps.store, this.keys, topic, partition);
        if (!stored) throw await this.unknownPartition(topic, partition);
        const added = proposal.newIsr.filter((id) => !stored.state.isr.includes(id));
        const unreachable = this.unreachable.current();
        const needLive = added.length > 0 || unreachable.has(stored.state.leader);
        const liveness: BrokerLiveness = {
          live: needLive ? new Set((await this.registry.listBrokers()).map((b) => b.id)) : new Set(),
          shuttingDown: this.shuttingDown,
          unreachable,
        };
        const next = validateAlterPartition(stored.state, proposal, liveness, { topic, partition });
        if (next === stored.state) return { partition, ...stored.state };
        const outcome = await writePartitions(this.deps.store, [{ current: stored, next }], () =>
          this.election.fencing(),
        );
        if (outcome.written.length === 1) {
          this.statsValue.isrChanges++;
          this.logger.info(
            {
              topic,
              partition,
              broker: proposal.brokerId,
              isr: next.isr,
              previousIsr: stored.state.isr,
              partitionEpoch: next.partitionEpoch,
            },
            'ISR changed by the leader',
          );
          return { partition, ...next };
        }
        // Changed since read: validate again against the new state (usually FENCED_EPOCH).
        if (attempt >= RPC_CONFLICT_ATTEMPTS) throw busy(`partition ${topic}-${partition}`);
      }
    });
  }

  /**
   * Follower broker `brokerId` has had no answer from leader broker `leaderId` for `forMs`. The
   * report counts for a while (UnreachableReports); a pass then moves every partition whose other
   * live ISR members mostly report that leader (partition-leadership.ts leaderCutOff).
   */
  async reportLeaderUnreachable(brokerId: number, leaderId: number, forMs: number): Promise<void> {
    this.requireActive();
    if (brokerId === leaderId) throw new TideError('INVALID_REQUEST', 'a broker cannot report itself');
    if (this.unreachable.report(brokerId, leaderId)) {
      this.logger.warn({ broker: brokerId, leader: leaderId, forMs }, 'a follower cannot reach its leader');
    }
    this.reconciler.request({ preferred: false });
    // Answer after the pass, so a reporter that repeats itself does not pile up passes.
    await this.reconciler.settled();
  }

  /**
   * Broker `brokerId`'s log of topic-partition failed (replicaOfflinePartition): leadership moves
   * to another live ISR member and the broker leaves the ISR. Answers the partition's state after.
   */
  async reportReplicaOffline(brokerId: number, topic: string, partition: number): Promise<PartitionView> {
    return this.fenced(async () => {
      validateTopicName(topic);
      for (let attempt = 1; ; attempt++) {
        this.requireActive();
        const stored = await readPartition(this.deps.store, this.keys, topic, partition);
        if (!stored) throw await this.unknownPartition(topic, partition);
        const live = new Set((await this.registry.listBrokers()).map((b) => b.id));
        const decision = replicaOfflinePartition(stored.state, brokerId, {
          live,
          shuttingDown: this.shuttingDown,
        });
        if (decision.change === 'unchanged') {
          this.logger.warn(
            { topic, partition, broker: brokerId, state: stored.state },
            'replica offline (log failed), but no other in-sync replica can take over',
          );
          return { partition, ...stored.state };
        }
        const outcome = await writePartitions(
          this.deps.store,
          [{ current: stored, next: decision.state }],
          () => this.election.fencing(),
        );
        if (outcome.written.length === 1) {
          this.statsValue.isrChanges++;
          this.logger.warn(
            { topic, partition, broker: brokerId, leader: decision.state.leader, isr: decision.state.isr },
            'replica offline (log failed): moved away from it',
          );
          return { partition, ...decision.state };
        }
        if (attempt >= RPC_CONFLICT_ATTEMPTS) throw busy(`partition ${topic}-${partition}`);
      }
    });
  }

  /**
   * Moves every leadership of `brokerId` to another live ISR member and takes it out of every ISR
   * that has another member; marks it shutting down (never chosen as leader while another replica
   * can lead) until its registration goes or is renewed. Answers the partitions it still leads.
   */
  async controlledShutdown(brokerId: number): Promise<{ remaining: { topic: string; partition: number }[] }> {
    return this.fenced(async () => {
      this.requireActive();
      this.shuttingDown.add(brokerId);
      this.logger.info({ broker: brokerId }, 'controlled shutdown requested');
      let topics: Set<string> | undefined;
      for (let attempt = 1; ; attempt++) {
        const partitions = await readPartitions(this.deps.store, this.keys, topics, (key, err) =>
          this.logger.error({ err, key }, 'partition state unreadable; left as it is'),
        );
        const live = new Set((await this.registry.listBrokers()).map((b) => b.id));
        const liveness: BrokerLiveness = { live, shuttingDown: this.shuttingDown };
        const writes: PartitionWrite[] = [];
        for (const stored of partitions) {
          const decision = controlledShutdownPartition(stored.state, brokerId, liveness);
          if (decision.change !== 'unchanged') writes.push({ current: stored, next: decision.state });
        }
        const outcome = await writePartitions(this.deps.store, writes, () => this.election.fencing());
        this.statsValue.controlledShutdownMoves += outcome.written.length;
        for (const w of outcome.written) {
          this.logger.info(
            {
              topic: w.current.topic,
              partition: w.current.partition,
              broker: brokerId,
              leader: w.next.leader,
              leaderEpoch: w.next.leaderEpoch,
              isr: w.next.isr,
            },
            'controlled shutdown: partition moved',
          );
        }
        if (outcome.conflicted.length === 0 || attempt >= RPC_CONFLICT_ATTEMPTS) {
          const after = await readPartitions(this.deps.store, this.keys, undefined, () => undefined);
          const remaining = after
            .filter((p) => p.state.leader === brokerId)
            .map((p) => ({ topic: p.topic, partition: p.partition }));
          this.logger.info({ broker: brokerId, remaining: remaining.length }, 'controlled shutdown answered');
          return { remaining };
        }
        topics = new Set(outcome.conflicted.map((w) => w.current.topic));
      }
    });
  }

  /** Cluster id, this controller's id and the live brokers (NOT_CONTROLLER on a standby). */
  async describeCluster(): Promise<ClusterDescription> {
    this.requireActive();
    const clusterId = this.clusterId ?? (await ensureClusterId(this.deps.store, this.config.clusterName));
    const brokers = await this.registry.listBrokers();
    return {
      clusterId,
      controllerId: this.config.controllerId,
      brokers: brokers.map((b) => ({ id: b.id, host: b.host, port: b.port, rack: b.rack ?? '' })),
    };
  }

  /** Stops serving, resigns (deletes the controller key if still ours, revokes the lease). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.server?.health.setStatus('', 'NOT_SERVING');
    await this.election.resign();
    await this.reconciler.deactivate();
    await this.reassigner.deactivate();
    if (this.server) await stopServer(this.server.server, 2_000);
    await this.auth.close();
    this.logger.info({ address: this.address }, 'controller stopped');
  }

  // ---- internals ----

  private onElection(event: ElectionEvent): void {
    const serving = event.state === 'active' ? 'SERVING' : 'NOT_SERVING';
    this.server?.health.setStatus('tide.v1.Controller', serving);
    this.server?.health.setStatus('tide.v1.Admin', serving);
    if (event.state === 'active') {
      this.statsValue.activations++;
      // After any deactivation still finishing (a quick lose-and-win-again).
      this.activation = this.activation.then(() => this.activate(event.epoch));
    } else {
      // Stop at once (the reconciler's pending work is dropped synchronously); await the rest later.
      const deactivated = Promise.all([this.reconciler.deactivate(), this.reassigner.deactivate()]).then(
        () => undefined,
      );
      this.activation = this.activation.then(() => deactivated);
    }
  }

  private async activate(epoch: number): Promise<void> {
    if (this.election.epoch !== epoch) return;
    try {
      this.clusterId = await ensureClusterId(this.deps.store, this.config.clusterName);
    } catch (err) {
      this.logger.warn({ err }, 'cannot read the cluster id yet');
    }
    if (this.election.epoch !== epoch) return;
    await this.reconciler.activate();
    if (this.election.epoch === epoch) this.reassigner.activate();
  }

  private onFenced(err: TideError): void {
    this.statsValue.fencedWrites++;
    this.election.stepDown(`a fenced write was rejected: ${err.message}`);
  }

  private requireActive(): void {
    if (!this.election.isActive) throw this.election.notControllerError();
  }

  /** Runs a write operation; a NOT_CONTROLLER from an active instance means fenced: step down. */
  private async fenced<T>(operation: () => Promise<T>): Promise<T> {
    this.requireActive();
    const epoch = this.election.epoch;
    try {
      return await operation();
    } catch (err) {
      if (err instanceof TideError && err.code === 'NOT_CONTROLLER' && this.election.epoch === epoch) {
        this.logger.warn({ err, epoch }, 'write rejected by fencing');
        this.onFenced(err);
        throw this.election.notControllerError(`fenced: ${err.message}`);
      }
      throw err;
    }
  }

  private guardedAdmin(ops: TopicAdmin): TopicAdmin {
    return {
      createTopic: (spec) => this.fenced(() => ops.createTopic(spec)),
      deleteTopic: (name) => this.fenced(() => ops.deleteTopic(name)),
      listTopics: async (internal) => (this.requireActive(), ops.listTopics(internal)),
      describeTopic: async (name) => (this.requireActive(), ops.describeTopic(name)),
      describeConfigs: async (name) => (this.requireActive(), ops.describeConfigs(name)),
      alterConfigs: (name, set, remove, validateOnly) =>
        this.fenced(() => ops.alterConfigs(name, set, remove, validateOnly)),
    };
  }

  private guardedElastic(ops: Required<ElasticAdmin>): Required<ElasticAdmin> {
    const writes: (keyof ReassignmentAdmin)[] = [
      'alterReassignments',
      'decommissionBroker',
      'recommissionBroker',
    ];
    const guarded = { ...ops };
    guarded.createPartitions = (topic, count, validateOnly) =>
      this.fenced(() => ops.createPartitions(topic, count, validateOnly));
    for (const name of writes) {
      const op = ops[name] as (...args: unknown[]) => Promise<unknown>;
      (guarded as Record<string, unknown>)[name] = (...args: unknown[]) => this.fenced(() => op(...args));
    }
    guarded.listReassignments = async (topics) => (this.requireActive(), ops.listReassignments(topics));
    guarded.describeDecommission = async (id) => (this.requireActive(), ops.describeDecommission(id));
    return guarded;
  }

  private async unknownPartition(topic: string, partition: number): Promise<TideError> {
    const exists = await this.deps.store.get(this.keys.topic(topic));
    return exists
      ? new TideError('UNKNOWN_PARTITION', `topic ${topic} has no partition ${partition}`, {
          context: { topic, partition },
        })
      : new TideError('UNKNOWN_TOPIC', `topic ${echo(topic)} does not exist`, { context: { topic } });
  }
}

function busy(what: string): TideError {
  return new TideError('METADATA_UNAVAILABLE', `${what} kept changing; retry`);
}

function splitAddress(address: string): [string, number] {
  const colon = address.lastIndexOf(':');
  return [address.slice(0, colon), Number(address.slice(colon + 1))];
}
