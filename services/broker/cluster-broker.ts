/**
 * `tide broker`: one broker of a multi-process cluster. Metadata lives in etcd; topic changes and
 * ISR changes go through the active controller (ControllerClient follows it); on SIGTERM the broker
 * first asks the controller to move its leaderships away (controlled shutdown), then stops.
 */
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import { EtcdMetadataStore } from '../common/metadata/etcd';
import { ensureClusterId } from '../common/cluster/cluster-id';
import { ProducerIdAllocator } from '../common/cluster/producer-ids';
import { ControllerClient } from '../common/cluster/controller-client';
import { TopicRegistry } from '../common/cluster/topic-registry';
import { TideError } from '../common/errors';
import { BrokerNode } from './broker-node';
import type { BrokerConfig } from './config';
import { serviceSecurityOf, type ServiceSecurity } from '../common/security/service-security';

export class ClusterBroker {
  private constructor(
    readonly broker: BrokerNode,
    private readonly controller: ControllerClient,
    private readonly store: EtcdMetadataStore,
    private readonly logger: Logger,
    private readonly security: ServiceSecurity,
  ) {}

  get address(): string {
    return this.broker.address;
  }

  static async start(config: BrokerConfig, deps: { clock: Clock; logger: Logger }): Promise<ClusterBroker> {
    const endpoints = config.etcdEndpoints
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    if (endpoints.length === 0) {
      throw new TideError(
        'INVALID_CONFIG',
        'tide broker needs etcd: set --etcd http://host:2379 (or TIDE_ETCD_ENDPOINTS)',
      );
    }
    const security = serviceSecurityOf(config, deps.logger);
    const store = new EtcdMetadataStore({
      endpoints,
      logger: deps.logger,
      clock: deps.clock,
      security: security.etcd,
    });
    try {
      const clusterId = await ensureClusterId(store, config.clusterName);
      const controller = new ControllerClient({
        store,
        clusterName: config.clusterName,
        logger: deps.logger,
        clock: deps.clock,
        credentials: security.channel,
      });
      await controller.start();
      // Brokers only read and watch topics; creation goes through the controller.
      const topics = new TopicRegistry({
        store,
        clusterName: config.clusterName,
        clock: deps.clock,
        logger: deps.logger,
      });
      const producerIds = new ProducerIdAllocator({
        store,
        clusterName: config.clusterName,
        logger: deps.logger,
      });
      const broker = await BrokerNode.start(config, {
        store,
        clock: deps.clock,
        logger: deps.logger,
        clusterId,
        topics,
        topicAdmin: controller,
        elasticAdmin: controller,
        producerIds,
        controllerId: () => controller.controllerId(),
        isrProposer: controller,
        replication: {
          replicaLagTimeMaxMs: config.replicaLagTimeMaxMs,
          replicaFetchWaitMaxMs: config.replicaFetchWaitMaxMs,
          replicaStreamLossIsrShrinkMs: config.replicaStreamLossIsrShrinkMs,
          replicaLeaderUnreachableMs: config.replicaLeaderUnreachableMs,
        },
        leaderUnreachableReporter: controller,
        offlineReporter: controller,
        security,
      });
      return new ClusterBroker(broker, controller, store, deps.logger, security);
    } catch (err) {
      await store.close();
      security.close();
      throw err;
    }
  }

  /** Controlled shutdown, then a clean stop. */
  async stop(): Promise<void> {
    try {
      const { remaining } = await this.controller.controlledShutdown(this.broker.id);
      if (remaining.length > 0) {
        this.logger.warn(
          { remaining },
          'controlled shutdown left partitions without another in-sync replica to lead them',
        );
      }
    } catch (err) {
      this.logger.warn(
        { err },
        'controlled shutdown failed; stopping anyway (the controller reacts when the lease lapses)',
      );
    }
    await this.broker.stop();
    await this.store.close();
    this.security.close();
  }
}
