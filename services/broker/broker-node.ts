/**
 * A running broker: its logs, the partitions it hosts, its registration in the cluster, and its
 * gRPC server. The composition of those parts lives here; the logic lives in the parts.
 */
import { ensureInternalToken } from '../common/cluster/internal-token';
import { connectionLimitsOf } from '../common/service-config-keys';
import { EventEmitter } from 'events';
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import type { MetadataStore } from '../common/metadata/store';
import { internalProto, tideProto } from '../common/grpc/proto';
import { txnMarkersProto } from '../common/grpc/txn-markers-proto';
import { startServer, stopServer, type TideServer } from '../common/grpc/server';
import { BrokerRegistry } from '../common/cluster/broker-registry';
import { toTopicInfo } from '../common/cluster/admin-wire';
import { toLogConfig } from './partition/log-config';
import type { TopicRegistry } from '../common/cluster/topic-registry';
import { brokerHandlers } from './api/broker-service';
import { LeaderForwarder } from './api/forward';
import { BrokerMetrics } from './metrics';
import { serveMetrics, type MetricsServer } from '../common/metrics';
import { adminHandlers, type TopicAdmin } from './api/admin';
import type { MetadataView, ProducerIdSource } from './api/registry';
import { withZeroCopyFetch } from './api/fetch-serializer';
import { txnMarkersService } from './api/txn-markers';
import { cleanerConfigOf, fetchStreamLimitsOf, type BrokerConfig } from './config';
import { InlineWrites, LogManager } from './log';
import { ReplicaManager, type OfflineReplicaReporter } from './partition/replica-manager';
import { DiskFaultFile } from './disk-fault-file';
import { reportReadyWhenCaughtUp } from './readiness';
import type { IsrProposer } from './partition/partition';
import { LeaseFence } from '../common/lease-fence';
import { RegistrationKeeper } from './registration-keeper';
import { replicationSettings, type ReplicationSettings } from './partition/replication-settings';
import {
  ReassignmentThrottle,
  ReplicaFetcherManager,
  ReplicationService,
  grpcConnector,
  withZeroCopyReplication,
  type LeaderUnreachableReporter,
  type ReplicationConnector,
} from './replication';
import type { BrokerInfo__Input } from '../common/grpc/generated/tide/v1/BrokerInfo';
import { CoordinatorLocator } from '../common/cluster/coordinator-locator';
import { ShardOwners } from '../common/cluster/coordinator-owners';
import { CoordinatorRelay } from './api/coordinator-forward';
import { TransactionRelay } from './api/txn-forward';
import { TxnJoinClient } from './api/txn-join-client';
import type { ElasticAdmin } from '../common/cluster/elastic-operations';
import { insecureServiceSecurity, type ServiceSecurity } from '../common/security/service-security';
import { NO_AUTH, auditLogger, type ServiceAuth } from '../common/security/auth/service-auth';
import { startServiceAccess } from '../common/security/service-access';
import { aclAdminHandlers } from '../common/security/auth/acl-admin-service';
import { quotaAdminHandlers } from '../common/security/quota/quota-admin-service';
import { appMetadataAdminHandlers } from '../common/app-metadata/app-metadata-admin-service';

export interface BrokerNodeDeps {
  store: MetadataStore;
  clock: Clock;
  logger: Logger;
  clusterId: string;
  /** Topic metadata reads and watches. */
  /** The topics to host partitions of (read and watched; the controller writes them). */
  topics: TopicRegistry;
  /** Where Admin requests go (the controller). */
  topicAdmin: TopicAdmin;
  /** Where the Admin API's elastic requests go (the controller); absent: refused. */
  elasticAdmin?: ElasticAdmin;
  producerIds: ProducerIdSource;
  /** The id of the active controller, for metadata responses. */
  controllerId: () => number;
  /** Where partition leaders propose ISR changes (the controller's AlterPartition); absent: never. */
  isrProposer?: IsrProposer;
  /** replica.* settings (lag time, fetch sizes...); defaults in partition/replication-settings.ts. */
  replication?: Partial<ReplicationSettings>;
  /** Where a replica whose log failed is reported (the controller); absent: never. */
  offlineReporter?: OfflineReplicaReporter;
  /** Where followers report a leader broker they cannot reach (the controller); absent: never. */
  leaderUnreachableReporter?: LeaderUnreachableReporter;
  /** How followers reach leaders; default gRPC. */
  replicationConnector?: ReplicationConnector;
  /** TLS for the listener and for calls to other services; plain text by default. */
  security?: ServiceSecurity;
}

export class BrokerNode {
  private constructor(
    private readonly config: BrokerConfig,
    private readonly deps: BrokerNodeDeps,
    private readonly logs: LogManager,
    private readonly replicas: ReplicaManager,
    private readonly fetchers: ReplicaFetcherManager,
    private readonly replication: ReplicationService,
    private readonly server: TideServer,
    private readonly registration: RegistrationKeeper,
    private readonly watches: { cancel(): Promise<void> }[],
    private readonly brokerInfo: BrokerInfo__Input,
    private readonly forwarder: LeaderForwarder,
    private readonly coordinatorRelay: CoordinatorRelay,
    private readonly shardOwners: ShardOwners,
    private readonly metricsServer: MetricsServer | undefined,
  ) {}

  /** The port of the Prometheus endpoint, when metrics are on. */
  get metricsPort(): number | undefined {
    return this.metricsServer?.port;
  }

  /** The address clients connect to, host:port. */
  get address(): string {
    return `${this.brokerInfo.host}:${this.brokerInfo.port}`;
  }

  get id(): number {
    return this.config.brokerId;
  }

  static async start(config: BrokerConfig, deps: BrokerNodeDeps): Promise<BrokerNode> {
    const logger = deps.logger.child({ broker: config.brokerId });
    const hosted: { replicas?: ReplicaManager } = {};
    const faults = config.diskFaultsFile
      ? new DiskFaultFile(config.diskFaultsFile, { clock: deps.clock, logger })
      : undefined;
    const inlineWrites = new InlineWrites({
      clock: deps.clock,
      logger,
      maxBytes: config.logInlineWriteMaxBytes,
    });
    const logs = new LogManager({
      faults,
      inlineWrites,
      onLogFailure: (topic, partition, error) => hosted.replicas?.logFailed(topic, partition, error),
      dataDir: config.dataDir,
      clock: deps.clock,
      logger,
      defaultConfig: toLogConfig({}),
      retentionCheckIntervalMs: config.retentionCheckIntervalMs,
      cleaner: cleanerConfigOf(config),
      retentionMaxOffset: (log) => hosted.replicas?.highWatermarkOf(log.topic, log.partition),
    });
    await logs.open();
    const settings = replicationSettings(deps.replication);
    // Leading needs a registration whose lease is certainly alive (zombie fencing, docs/replication.md).
    let keeper: RegistrationKeeper | undefined;
    const fence = new LeaseFence({
      clock: deps.clock,
      logger,
      validUntilMs: () => keeper?.validUntilMs() ?? Infinity,
      refuses: 'produce requests as leader',
    });
    const security = deps.security ?? insecureServiceSecurity();
    const connect =
      deps.replicationConnector ??
      grpcConnector({ maxMessageBytes: config.maxRequestBytes, credentials: security.channel });
    const fetchers = new ReplicaFetcherManager({
      brokerId: config.brokerId,
      brokerEpoch: deps.clock.nowMs(),
      connect,
      clock: deps.clock,
      logger,
      settings,
      onLeaderUnreachable: deps.leaderUnreachableReporter
        ? (leaderId, forMs) =>
            deps.leaderUnreachableReporter!.reportLeaderUnreachable(config.brokerId, leaderId, forMs)
        : undefined,
    });
    // Transactional batches join their partition to the transaction at its coordinator (KIP-890).
    const owners: { current?: ShardOwners } = {};
    // Read from the metadata store below, before the broker serves (and so before any join).
    let internalToken = '';
    const txnJoins = new TxnJoinClient({
      owners: () => owners.current,
      internalToken: () => internalToken,
      clock: deps.clock,
      credentials: security.channel,
      maxMessageBytes: config.maxRequestBytes,
    });
    const replicas = new ReplicaManager({
      brokerId: config.brokerId,
      logs,
      clock: deps.clock,
      logger,
      settings,
      fetchers,
      isrProposer: deps.isrProposer,
      mayLead: () => fence.mayAct(),
      offlineReporter: deps.offlineReporter,
      txnJoiner: txnJoins,
    });
    hosted.replicas = replicas;
    const metrics = new BrokerMetrics(() => replicas.status(), inlineWrites.stats);
    const replication = new ReplicationService({
      partitions: replicas,
      clock: deps.clock,
      logger,
      defaultMaxBytes: settings.replicaFetchMaxBytes,
      streamLossMs: settings.replicaStreamLossIsrShrinkMs,
      onFollowerLost: (replicaId) => replicas.followerStreamLost(replicaId),
      throttle: new ReassignmentThrottle({
        bytesPerSecond: config.reassignmentThrottleBytesPerSecond,
        clock: deps.clock,
        addingReplicas: (topic, partition) => replicas.addingReplicasOf(topic, partition),
        onServed: (bytes) => metrics.reassignmentServed(bytes),
      }),
    });
    const registry = new BrokerRegistry({
      store: deps.store,
      clusterName: config.clusterName,
      clock: deps.clock,
      logger,
      leaseTtlMs: config.leaseTtlMs,
    });

    let brokers: BrokerInfo__Input[] = [];
    // Metadata watchers (WatchMetadata streams) hear of every applied change.
    const changes = new EventEmitter();
    changes.setMaxListeners(0);
    const metadata: MetadataView = {
      clusterId: () => deps.clusterId,
      controllerId: deps.controllerId,
      brokers: () => brokers,
      topics: (names) => {
        const live = new Set(brokers.map((b) => b.id ?? -1));
        const all = replicas.currentTopics();
        const chosen = names ? names.flatMap((n) => (all.has(n) ? [all.get(n)!] : [])) : [...all.values()];
        return chosen.map((t) => toTopicInfo(t, live));
      },
      onChange: (listener) => {
        changes.on('change', listener);
        return () => changes.off('change', listener);
      },
    };

    const forwarder = new LeaderForwarder(metadata, security.channel);
    internalToken = await ensureInternalToken(deps.store, config.clusterName);
    const txnMarkers = txnMarkersService({ partitions: replicas, internalToken }, metrics.edge(logger));
    changes.on('change', () => metrics.observePartitions(replicas.status()));
    const metricsServer =
      config.metricsPort >= 0
        ? await serveMetrics(metrics.service.registry, {
            host: config.host,
            port: config.metricsPort,
            logger,
          })
        : undefined;
    let server: TideServer | undefined;
    let shardOwners: ShardOwners | undefined;
    let coordinatorRelay: CoordinatorRelay | undefined;
    let transactionRelay: TransactionRelay | undefined;
    let auth: ServiceAuth = NO_AUTH;
    try {
      auth = await startServiceAccess(config, { store: deps.store, clock: deps.clock, logger });
      // Group calls are relayed to the coordinator that owns the group (one endpoint is enough).
      shardOwners = await ShardOwners.start({
        store: deps.store,
        clusterName: config.clusterName,
        clock: deps.clock,
        logger,
      });
      owners.current = shardOwners;
      const relay = (coordinatorRelay = new CoordinatorRelay({
        owners: shardOwners,
        locator: new CoordinatorLocator(deps.store, config.clusterName),
        brokerId: config.brokerId,
        logger,
        edge: metrics.edge(logger),
        maxMessageBytes: config.maxRequestBytes,
        credentials: security.channel,
      }));
      // Transaction calls likewise, to the coordinator of the transactional id (or of the group).
      const txnRelay = (transactionRelay = new TransactionRelay({
        owners: shardOwners,
        locator: new CoordinatorLocator(deps.store, config.clusterName),
        brokerId: config.brokerId,
        logger,
        edge: metrics.edge(logger),
        maxMessageBytes: config.maxRequestBytes,
        credentials: security.channel,
      }));
      server = await startServer({
        host: config.host,
        port: config.port,
        credentials: security.server,
        interceptors: auth.interceptors,
        connections: connectionLimitsOf(config),
        healthPort: config.healthPort,
        maxMessageBytes: config.maxRequestBytes,
        healthServices: ['tide.v1.Broker', 'tide.v1.Admin'],
        register: (s) => {
          const proto = tideProto();
          s.addService(
            withZeroCopyFetch(proto.Broker.service),
            brokerHandlers({
              partitions: replicas,
              metadata,
              forwarder,
              metrics,
              streamLimits: fetchStreamLimitsOf(config),
              internalTopics: {
                isInternal: (topic) => replicas.currentTopics().get(topic)?.internal === true,
                token: internalToken,
              },
              producerIds: deps.producerIds,
              clock: deps.clock,
              logger,
            }),
          );
          s.addService(proto.Admin.service, {
            ...adminHandlers({
              topics: deps.topicAdmin,
              elastic: deps.elasticAdmin,
              partitions: replicas,
              metadata,
              logger,
              edge: metrics.edge(logger),
              forwarder,
              isInternalTopic: (topic) => replicas.currentTopics().get(topic)?.internal === true,
            }),
            ...aclAdminHandlers({
              store: deps.store,
              clusterName: config.clusterName,
              edge: metrics.edge(logger),
              audit: auditLogger(logger),
            }),
            ...quotaAdminHandlers({
              store: deps.store,
              clusterName: config.clusterName,
              edge: metrics.edge(logger),
              audit: auditLogger(logger),
            }),
            ...appMetadataAdminHandlers({
              store: deps.store,
              clusterName: config.clusterName,
              clock: deps.clock,
              edge: metrics.edge(logger),
            }),
          });
          s.addService(
            withZeroCopyReplication(internalProto().replication.Replication.service),
            replication.handlers(),
          );
          s.addService(txnMarkersProto().TxnMarkers.service, txnMarkers.handlers);
          // FindCoordinator / DescribeCoordinators answered here; every other group call relayed.
          const groups = relay.service();
          s.addService(groups.definition, groups.handlers);
          const transactions = txnRelay.service();
          s.addService(transactions.definition, transactions.handlers);
        },
      });
      const brokerInfo: BrokerInfo__Input = {
        id: config.brokerId,
        host:
          config.advertisedHost ||
          (config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host),
        port: config.advertisedPort || server.port,
        rack: config.rack,
      };
      const registration = (keeper = new RegistrationKeeper({
        registry,
        broker: {
          id: config.brokerId,
          host: String(brokerInfo.host),
          port: Number(brokerInfo.port),
          ...(config.rack ? { rack: config.rack } : {}),
        },
        fence,
        clock: deps.clock,
        logger,
        // A restart right after a crash finds the old key until its lease lapses.
        waitForPreviousMs: config.leaseTtlMs + 2_000,
      }));
      await registration.start();
      const brokerWatch = await registry.watchBrokers((update) => {
        brokers = update.brokers.map((b) => ({ id: b.id, host: b.host, port: b.port, rack: b.rack ?? '' }));
        changes.emit('change');
        fetchers.setBrokers(update.brokers);
      });
      // Serve only once the partitions already assigned here are open.
      let resolveFirst!: (applied: Promise<void>) => void;
      const firstApplied = new Promise<Promise<void>>((resolve) => (resolveFirst = resolve));
      let first = true;
      const topicWatch = await deps.topics.watchTopics((update) => {
        const applied = replicas.apply(update);
        void applied.then(() => changes.emit('change'));
        if (first) {
          first = false;
          resolveFirst(applied);
        }
      });
      await await firstApplied;
      const node = new BrokerNode(
        config,
        deps,
        logs,
        replicas,
        fetchers,
        replication,
        server,
        registration,
        // The disk-fault file's poll timer stops with the watches (it exists only in fault tests).
        // The transaction relay's channels and the ACL cache's watch close with them too.
        [
          topicWatch,
          brokerWatch,
          { cancel: async () => faults?.close() },
          { cancel: async () => txnRelay.close() },
          { cancel: async () => txnJoins.close() },
          // Coordinators keep their marker streams open; a stopping server would wait for them.
          { cancel: async () => txnMarkers.closeStreams() },
          { cancel: () => auth.close() },
        ],
        brokerInfo,
        forwarder,
        relay,
        shardOwners,
        metricsServer,
      );
      server.health.setStatus('', 'SERVING');
      server.health.setStatus('tide.v1.Admin', 'SERVING');
      reportReadyWhenCaughtUp(server, replicas, config, deps.clock, logger);
      logger.info(
        { address: node.address, dataDir: config.dataDir, metricsPort: metricsServer?.port },
        'broker started',
      );
      return node;
    } catch (err) {
      if (server) await stopServer(server.server, 0);
      await auth.close();
      coordinatorRelay?.close();
      transactionRelay?.close();
      txnJoins.close();
      await shardOwners?.stop();
      replicas.closeAll();
      await fetchers.close();
      await logs.closeAll();
      faults?.close();
      throw err;
    }
  }

  /** Stops serving, closes every log cleanly (writing indexes and the clean-shutdown marker). */
  async stop(): Promise<void> {
    this.server.health.setStatus('', 'NOT_SERVING');
    for (const watch of this.watches) await watch.cancel();
    this.replicas.closeAll();
    await this.fetchers.close();
    this.replication.closeStreams();
    await stopServer(this.server.server, 2_000);
    this.forwarder.close();
    this.coordinatorRelay.close();
    await this.shardOwners.stop();
    await this.metricsServer?.close();
    await this.logs.closeAll();
    await this.registration.stop();
    this.deps.logger.info({ broker: this.config.brokerId }, 'broker stopped');
  }
}
