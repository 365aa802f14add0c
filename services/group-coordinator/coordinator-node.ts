/**
 * A running group coordinator instance: its gRPC server, its shard ownership in the metadata
 * store, its Tide client to the brokers (for `__consumer_offsets` and ListOffsets), and the topic
 * view it assigns from. The composition lives here; the logic lives in the parts. Used by
 * `tide coordinator` (etcd) and by `tide dev` (embedded store, in-process).
 */
import { ensureInternalToken } from '../common/cluster/internal-token';
import { INTERNAL_TOKEN_HEADER } from '../common/grpc/routing-headers';
import { connectionLimitsOf } from '../common/service-config-keys';
import { randomBytes } from 'crypto';
import * as os from 'os';
import type { Clock } from '../common/clock';
import { TideError } from '../common/errors';
import type { Logger } from '../common/logger';
import type { MetadataStore, Watch } from '../common/metadata/store';
import { startServer, stopServer, type TideServer } from '../common/grpc/server';
import { BrokerRegistry } from '../common/cluster/broker-registry';
import { TopicRegistry } from '../common/cluster/topic-registry';
import type { InternalTopicCreator } from '../common/cluster/admin-operations';
import { Cluster } from '../../client/cluster';
import { coordinatorHandlers } from './api/coordinator-service';
import { CoordinatorLocator } from '../common/cluster/coordinator-locator';
import { coordinatorProto } from '../common/grpc/coordinator-proto';
import type { CoordinatorConfig } from './config';
import { Coordinator } from './coordinator';
import { serveMetrics, type MetricsServer } from '../common/metrics';
import { coordinatorMetrics } from './metrics';
import { OFFSETS_TOPIC } from './offsets-codec';
import { TideOffsetsLog } from './offsets-log';
import { ShardOwnership } from './shard-ownership';
import { tpKey } from './partitions';
import {
  COORDINATOR_ID,
  partitionOfShard,
  shardOf,
  type CoordinatorRecord,
} from '../common/cluster/coordinator-shards';
import * as grpc from '@grpc/grpc-js';
import { ProducerIdAllocator } from '../common/cluster/producer-ids';
import { transactionsProto, txnInternalProto } from '../common/grpc/transactions-proto';
import {
  endTxnStreams,
  transactionHandlers,
  txnJoinsService,
  txnOffsetsHandlers,
} from './api/transaction-service';
import { TRANSACTION_STATE_TOPIC } from './txn/txn-codec';
import { RetryingCompletion, TideGroupOutcomeWriter, TideMarkerWriter } from './txn/txn-completion';
import { TransactionCoordinator } from './txn/txn-coordinator';
import { transactionMetrics } from './txn/txn-metrics';

export const HEALTH_SERVICE = 'tide.v1.GroupCoordinator';
/** How long start() waits for brokers (to create and reach `__consumer_offsets`). */
export const BROKER_WAIT_MS = 120_000;

import type { ServiceSecurity } from '../common/security/service-security';
import { startServiceAccess } from '../common/security/service-access';
export interface CoordinatorNodeDeps {
  store: MetadataStore;
  /** Creates `__consumer_offsets`: the controller over gRPC (ControllerClient), or in process. */
  internalTopics: InternalTopicCreator;
  clock: Clock;
  logger: Logger;
  /** TLS for the listener and for calls to brokers; plain text by default. */
  security?: ServiceSecurity;
}

export class CoordinatorNode {
  private constructor(
    readonly id: string,
    readonly address: string,
    readonly coordinator: Coordinator,
    readonly transactions: TransactionCoordinator,
    private readonly ownership: ShardOwnership,
    private readonly server: TideServer,
    private readonly log: TideOffsetsLog,
    private readonly txnLog: TideOffsetsLog,
    private readonly cluster: Cluster,
    private readonly topicWatch: Watch,
    private readonly metrics: MetricsServer | undefined,
    private readonly logger: Logger,
    /** The streams peers keep open (brokers' joins, clients' EndTxn): ended before the server stops. */
    private readonly streams: { closeStreams(): void }[],
  ) {}

  /** The Prometheus port, when metrics are on. */
  get metricsPort(): number | undefined {
    return this.metrics?.port;
  }

  static async start(config: CoordinatorConfig, deps: CoordinatorNodeDeps): Promise<CoordinatorNode> {
    const id =
      config.coordinatorId ||
      `${os
        .hostname()
        .replace(/[^a-zA-Z0-9._-]/g, '-')
        .slice(0, 64)}-${randomBytes(3).toString('hex')}`;
    if (!COORDINATOR_ID.test(id))
      throw new TideError(
        'INVALID_CONFIG',
        `coordinator id ${JSON.stringify(id)} must be 1 to 128 characters of [a-zA-Z0-9._-]`,
      );
    const logger = deps.logger.child({ coordinator: id });
    const registry = new BrokerRegistry({
      store: deps.store,
      clusterName: config.clusterName,
      clock: deps.clock,
      logger,
    });
    const topics = new TopicRegistry({
      store: deps.store,
      clusterName: config.clusterName,
      clock: deps.clock,
      logger,
    });
    const partitionCounts = new Map<string, number>();
    let coordinator: Coordinator | undefined;
    const topicWatch = await topics.watchTopics((update) => {
      let changed = false;
      for (const [name, topic] of update.topics) {
        if (partitionCounts.get(name) !== topic.partitionCount) changed = true;
        partitionCounts.set(name, topic.partitionCount);
      }
      for (const name of [...partitionCounts.keys()]) {
        if (update.topics.has(name)) continue;
        partitionCounts.delete(name);
        changed = true;
      }
      if (changed) coordinator?.topicsChanged();
    });
    const cleanup: (() => Promise<unknown>)[] = [() => topicWatch.cancel()];
    try {
      const bootstrap = await brokerAddresses(config, registry, deps.clock, logger);
      // Writes to __consumer_offsets carry the internal token: brokers refuse them from clients.
      const internalToken = await ensureInternalToken(deps.store, config.clusterName);
      const cluster = new Cluster({
        bootstrap,
        clientId: `coordinator-${id}`,
        // Always straight to the leaders: 'auto' routing, bootstrapping while a broker is down
        // (a coordinator restarted during a broker restart), would switch to proxy routing for
        // good, and WriteTxnMarkers (not forwarded by brokers) would go to the wrong broker forever.
        routing: 'direct',
        logger,
        clock: deps.clock,
        connection: {
          callMetadata: { [INTERNAL_TOKEN_HEADER]: internalToken },
          ...(deps.security ? { credentials: deps.security.channel } : {}),
        },
      });
      cleanup.push(async () => cluster.close());
      const internalTopics = { registry: topics, brokers: registry, creator: deps.internalTopics };
      const offsetsPartitions = (await ensureInternalTopic(
        {
          name: OFFSETS_TOPIC,
          partitions: config.offsetsTopicPartitions,
          replicationFactor: config.offsetsTopicReplicationFactor,
          segmentBytes: config.offsetsTopicSegmentBytes,
        },
        internalTopics,
        partitionCounts,
        deps.clock,
        logger,
      )) as number;
      const log = new TideOffsetsLog(cluster, deps.clock, logger);
      cleanup.push(() => log.close());
      const txnLog = new TideOffsetsLog(cluster, deps.clock, logger, TRANSACTION_STATE_TOPIC);
      cleanup.push(() => txnLog.close());

      const ownershipRef: { current?: ShardOwnership } = {};
      coordinator = new Coordinator({
        selfId: id,
        clock: deps.clock,
        logger,
        log,
        offsets: log,
        offsetsPartitions,
        shardCount: () => ownershipRef.current?.shardCount ?? 0,
        partitionCount: (topic) => partitionCounts.get(topic),
        ownerOf: (shard) => ownershipRef.current?.ownerOf(shard),
        offsetsRetentionMs: config.offsetsRetentionMs,
        offsetsRetentionCheckIntervalMs: config.offsetsRetentionCheckIntervalMs,
      });
      const started = coordinator;
      const locator = new CoordinatorLocator(deps.store, config.clusterName);
      const auth = await startServiceAccess(config, { store: deps.store, clock: deps.clock, logger });
      cleanup.push(() => auth.close());
      const credentials = deps.security?.channel ?? grpc.credentials.createInsecure();
      const producerIds = new ProducerIdAllocator({
        store: deps.store,
        clusterName: config.clusterName,
        logger,
      });
      const metrics = config.metricsPort >= 0 ? coordinatorMetrics(coordinator) : undefined;
      const txnMetrics = metrics ? transactionMetrics(metrics) : undefined;
      const transactions = new TransactionCoordinator({
        selfId: id,
        clock: deps.clock,
        logger,
        log: txnLog,
        shardCount: () => ownershipRef.current?.shardCount ?? 0,
        partitionCount: (topic) => partitionCounts.get(topic),
        offsetsPartitionOf: (group) => {
          const shardCount = ownershipRef.current?.shardCount ?? 0;
          if (shardCount === 0) return undefined;
          return tpKey(OFFSETS_TOPIC, partitionOfShard(shardOf(group, shardCount), offsetsPartitions));
        },
        ownerOf: (shard) => ownershipRef.current?.ownerOf(shard),
        newProducerId: () => producerIds.next(),
        maxTimeoutMs: config.transactionMaxTimeoutMs,
        idExpirationMs: config.transactionalIdExpirationMs,
        observer: txnMetrics?.observer,
        completion: new RetryingCompletion(
          new TideMarkerWriter(
            cluster,
            internalToken,
            credentials,
            (topic) => partitionCounts.get(topic),
            logger,
          ),
          new TideGroupOutcomeWriter(
            (group, ending) =>
              started.ownsGroup(group)
                ? started
                    .completeTxnOffsets(group, ending.producerId, ending.producerEpoch, ending.commit)
                    .then(() => undefined)
                : undefined,
            async (group) => (await locator.find(group)).coordinator as CoordinatorRecord,
            credentials,
            internalToken,
          ),
          deps.clock,
          logger,
        ),
      });
      txnMetrics?.watch(() => transactions.list([]));
      const endTxn = endTxnStreams({ transactions, logger, observeRpc: metrics?.observeRpc });
      const txnJoins = txnJoinsService({
        transactions,
        logger,
        observeRpc: metrics?.observeRpc,
        internalToken,
      });
      const server = await startServer({
        interceptors: auth.interceptors,
        host: config.host,
        port: config.port,
        connections: connectionLimitsOf(config),
        healthPort: config.healthPort,
        healthServices: [HEALTH_SERVICE],
        ...(deps.security ? { credentials: deps.security.server } : {}),
        register: (s) => {
          s.addService(
            coordinatorProto().GroupCoordinator.service,
            coordinatorHandlers({
              coordinator: started,
              locator,
              selfId: id,
              partitionCount: (topic) => partitionCounts.get(topic),
              logger,
              observeRpc: metrics?.observeRpc,
            }),
          );
          s.addService(
            transactionsProto().TransactionCoordinator.service,
            transactionHandlers({
              transactions,
              groups: started,
              locator,
              selfId: id,
              logger,
              observeRpc: metrics?.observeRpc,
              endTxnStreams: endTxn,
            }),
          );
          s.addService(
            txnInternalProto().TxnOffsets.service,
            txnOffsetsHandlers({ groups: started, logger, internalToken }),
          );
          s.addService(txnInternalProto().TxnJoins.service, txnJoins.handlers);
        },
      });
      cleanup.push(() => {
        txnJoins.closeStreams();
        endTxn.closeStreams();
        return stopServer(server.server, 0);
      });
      const host =
        config.advertisedHost ||
        (config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host);
      const port = config.advertisedPort || server.port;
      const address = `${host}:${port}`;
      coordinator.start();
      cleanup.push(() => started.stop());
      transactions.start();
      cleanup.push(() => transactions.stop());
      // Created in the background: groups must not wait for it (an existing cluster may have
      // fewer brokers than its replication factor); transactions answer COORDINATOR_NOT_AVAILABLE
      // (retriable) until it exists.
      void createTransactionState(config, internalTopics, partitionCounts, transactions, deps.clock, logger);
      const ownership = new ShardOwnership({
        store: deps.store,
        clusterName: config.clusterName,
        self: { id, host, port },
        shardCount: config.shardCount,
        clock: deps.clock,
        logger,
        leaseTtlMs: config.leaseTtlMs,
        onAcquire: (shards) => {
          started.acquire(shards);
          transactions.acquire(shards);
        },
        onRelease: (shard, graceful) => {
          transactions.release(shard);
          return started.release(shard, graceful);
        },
      });
      ownershipRef.current = ownership;
      await ownership.start();
      const metricsServer = metrics
        ? await serveMetrics(metrics.registry, { host: config.host, port: config.metricsPort, logger })
        : undefined;
      server.health.setStatus('', 'SERVING');
      server.health.setStatus(HEALTH_SERVICE, 'SERVING');
      logger.info(
        {
          address,
          shardCount: ownership.shardCount,
          offsetsPartitions,
          metricsPort: metricsServer?.port,
        },
        'group coordinator started',
      );
      return new CoordinatorNode(
        id,
        address,
        coordinator,
        transactions,
        ownership,
        server,
        log,
        txnLog,
        cluster,
        // The ACL cache's watch ends with the topic watch.
        { cancel: () => topicWatch.cancel().then(() => auth.close()) },
        metricsServer,
        logger,
        [txnJoins, endTxn],
      );
    } catch (err) {
      for (const step of cleanup.reverse()) await step().catch(() => undefined);
      throw err;
    }
  }

  /** Hands every shard over (members move to the other instances), then stops. */
  async stop(): Promise<void> {
    this.server.health.setStatus('', 'NOT_SERVING');
    await this.ownership.stop();
    await this.transactions.stop();
    await this.coordinator.stop();
    await this.metrics?.close();
    // Brokers and clients keep their streams open; a stopping server would wait for them.
    for (const s of this.streams) s.closeStreams();
    await stopServer(this.server.server, 2_000);
    await this.log.close();
    await this.txnLog.close();
    this.cluster.close();
    await this.topicWatch.cancel();
    this.logger.info('group coordinator stopped');
  }
}

/** Creates (or finds) `__transaction_state`, retrying until it exists or the node stops. */
async function createTransactionState(
  config: CoordinatorConfig,
  topics: { registry: TopicRegistry; brokers: BrokerRegistry; creator: InternalTopicCreator },
  known: ReadonlyMap<string, number>,
  transactions: TransactionCoordinator,
  clock: Clock,
  logger: Logger,
): Promise<void> {
  while (!transactions.isStopped) {
    try {
      const partitions = await ensureInternalTopic(
        {
          name: TRANSACTION_STATE_TOPIC,
          partitions: config.transactionStatePartitions,
          replicationFactor: config.transactionStateReplicationFactor || config.offsetsTopicReplicationFactor,
          segmentBytes: config.offsetsTopicSegmentBytes,
        },
        topics,
        known,
        clock,
        logger,
        () => transactions.isStopped,
      );
      if (partitions !== undefined) transactions.setStatePartitions(partitions);
      return;
    } catch (err) {
      logger.warn({ err }, `cannot create ${TRANSACTION_STATE_TOPIC} yet; transactions wait for it`);
      await new Promise<void>((resolve) => clock.setTimeout(resolve, 1_000));
    }
  }
}

/** The configured bootstrap list, else the registered brokers (waiting for the first one). */
async function brokerAddresses(
  config: CoordinatorConfig,
  registry: BrokerRegistry,
  clock: Clock,
  logger: Logger,
): Promise<string[]> {
  const configured = config.bootstrap
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  if (configured.length > 0) return configured;
  const deadline = clock.nowMs() + BROKER_WAIT_MS;
  for (let logged = false; ; logged = true) {
    const brokers = await registry.listBrokers();
    if (brokers.length > 0) return brokers.map((b) => `${b.host}:${b.port}`);
    if (clock.nowMs() > deadline)
      throw new TideError(
        'BROKER_NOT_AVAILABLE',
        `no broker registered within ${BROKER_WAIT_MS} ms; start \`tide broker\` first`,
      );
    if (!logged) logger.info('waiting for a broker to register');
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 250));
  }
}

/**
 * Creates an internal compacted topic (`__consumer_offsets`, `__transaction_state`) when it does
 * not exist, and answers its partition count. With replication factor 3 (the default; the
 * controller answers a retriable NOT_ENOUGH_REPLICAS until that many brokers are registered, and
 * this waits) min.insync.replicas is 2, so an acknowledged write survives the loss of a broker. Its
 * segment.bytes is offsetsTopicSegmentBytes (an existing topic keeps its own).
 */
async function ensureInternalTopic(
  wanted: { name: string; partitions: number; replicationFactor: number; segmentBytes: number },
  topics: { registry: TopicRegistry; brokers: BrokerRegistry; creator: InternalTopicCreator },
  known: ReadonlyMap<string, number>,
  clock: Clock,
  logger: Logger,
  stopped: () => boolean = () => false,
): Promise<number | undefined> {
  const deadline = clock.nowMs() + BROKER_WAIT_MS;
  const rf = wanted.replicationFactor;
  const name = wanted.name;
  const spec = {
    name,
    partitions: wanted.partitions,
    replicationFactor: rf,
    configs: {
      'cleanup.policy': 'compact',
      'min.insync.replicas': rf >= 3 ? '2' : '1',
      'segment.bytes': String(wanted.segmentBytes),
    },
    validateOnly: false,
  };
  for (let waiting = false; ;) {
    if (stopped()) return undefined;
    const existing = known.get(name);
    if (existing !== undefined) {
      // Tells the controller the replication factor wanted, so it can grow a topic created smaller.
      void topics.creator.createInternalTopic(spec).catch(() => undefined);
      return existing;
    }
    try {
      const created = await topics.creator.createInternalTopic(spec);
      logger.info(
        { partitions: (created.partitions ?? []).length, replicationFactor: rf },
        `created ${name}`,
      );
      return (created.partitions ?? []).length;
    } catch (err) {
      const code = (err as TideError).code;
      if (code === 'TOPIC_ALREADY_EXISTS') {
        const described = await topics.registry.describeTopic(name);
        return described.partitionCount;
      }
      if (clock.nowMs() > deadline) throw err;
      if (code === 'NOT_ENOUGH_REPLICAS') {
        if (!waiting) logger.info({ replicationFactor: rf }, `waiting for ${rf} brokers to create ${name}`);
        waiting = true;
      } else logger.info({ err }, `cannot create ${name} yet; retrying`);
      await new Promise<void>((resolve) => clock.setTimeout(resolve, 500));
    }
  }
}
