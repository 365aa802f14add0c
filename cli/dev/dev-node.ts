/**
 * `tide dev`: a whole single-node Tide in one process — the controller module, one broker and one
 * group coordinator on the embedded metadata store, persisted under the data dir so topics (and,
 * through `__consumer_offsets`, committed offsets) survive a restart.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Clock } from '../../services/common/clock';
import type { Logger } from '../../services/common/logger';
import { EmbeddedMetadataStore } from '../../services/common/metadata/embedded';
import { ensureClusterId } from '../../services/common/cluster/cluster-id';
import { TopicManager, internalTopicCreator, partitionAdmin, topicAdmin } from '../../services/controller';
import { ProducerIdAllocator } from '../../services/common/cluster/producer-ids';
import { BrokerRegistry } from '../../services/common/cluster/broker-registry';
import { BrokerNode } from '../../services/broker';
import type { DevConfig } from './dev-config';
import { loadConfig } from '../../services/common/config';
import { COORDINATOR_CONFIG_SCHEMA, CoordinatorNode } from '../../services/group-coordinator';
import { serviceSecurityOf, type ServiceSecurity } from '../../services/common/security/service-security';

export const METADATA_FILE = 'metadata.json';

export class DevNode {
  private constructor(
    readonly broker: BrokerNode,
    readonly coordinator: CoordinatorNode,
    private readonly store: EmbeddedMetadataStore,
    private readonly security: ServiceSecurity,
  ) {}

  get address(): string {
    return this.broker.address;
  }

  static async start(config: DevConfig, deps: { clock: Clock; logger: Logger }): Promise<DevNode> {
    fs.mkdirSync(config.dataDir, { recursive: true });
    // Logs live in <data>/logs so the metadata file never looks like a partition folder.
    const logDir = path.join(config.dataDir, 'logs');
    fs.mkdirSync(logDir, { recursive: true });
    const store = new EmbeddedMetadataStore({
      clock: deps.clock,
      persistPath: path.join(config.dataDir, METADATA_FILE),
      logger: deps.logger,
    });
    // TLS from the tls* keys, as for `tide broker`: the broker's and the coordinator's listeners,
    // and the coordinator's calls to the broker.
    const security = serviceSecurityOf(config, deps.logger);
    try {
      const clusterId = await ensureClusterId(store, config.clusterName);
      const registry = new BrokerRegistry({
        store,
        clusterName: config.clusterName,
        clock: deps.clock,
        logger: deps.logger,
      });
      const topicManager = new TopicManager({
        store,
        clusterName: config.clusterName,
        clock: deps.clock,
        logger: deps.logger,
        defaultReplicationFactor: config.defaultReplicationFactor,
        liveBrokers: registry,
      });
      const producerIds = new ProducerIdAllocator({
        store,
        clusterName: config.clusterName,
        logger: deps.logger,
      });
      const broker = await BrokerNode.start(
        { ...config, dataDir: logDir },
        {
          store,
          clock: deps.clock,
          logger: deps.logger,
          clusterId,
          topics: topicManager,
          topicAdmin: topicAdmin(topicManager),
          elasticAdmin: partitionAdmin(topicManager),
          producerIds,
          controllerId: () => config.brokerId,
          security,
        },
      );
      let coordinator: CoordinatorNode;
      try {
        // The group coordinator, on its own port (clients find it through the broker).
        coordinator = await CoordinatorNode.start(
          loadConfig(COORDINATOR_CONFIG_SCHEMA, {
            flags: {
              coordinatorId: 'dev',
              host: config.host,
              port: 0,
              clusterName: config.clusterName,
              bootstrap: broker.address,
              logLevel: config.logLevel,
              // One broker: Kafka's dev default (offsets.topic.replication.factor=1).
              offsetsTopicReplicationFactor: 1,
              offsetsRetentionMs: config.offsetsRetentionMs,
              offsetsRetentionCheckIntervalMs: config.offsetsRetentionCheckIntervalMs,
            },
          }),
          {
            store,
            clock: deps.clock,
            logger: deps.logger,
            internalTopics: internalTopicCreator(topicManager),
            security,
          },
        );
      } catch (err) {
        await broker.stop();
        throw err;
      }
      return new DevNode(broker, coordinator, store, security);
    } catch (err) {
      await store.close();
      security.close();
      throw err;
    }
  }

  async stop(): Promise<void> {
    await this.coordinator.stop();
    await this.broker.stop();
    await this.store.close();
    this.security.close();
  }
}
