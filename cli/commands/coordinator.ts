/**
 * `tide coordinator`: one group coordinator instance against etcd. Run 1..n of them; consumer
 * groups hash to shards and each shard is owned by one live instance (etcd-leased). Prints
 * `bootstrap <host:port>` once it serves; SIGTERM/SIGINT hand its shards over to the other
 * instances (members move without waiting for the lease) and exit.
 */
import { CLIENT_SECURITY_ENV } from '../security-options';
import { Command } from 'commander';
import { serviceSecurityOf } from '../../services/common/security/service-security';
import { loadConfig, redactConfig } from '../../services/common/config';
import { tuneGcForBufferTraffic } from '../../services/common/gc-tuning';
import { systemClock } from '../../services/common/clock';
import { createLogger } from '../../services/common/logger';
import { EtcdMetadataStore } from '../../services/common/metadata/etcd';
import { ControllerClient } from '../../services/common/cluster/controller-client';
import { COORDINATOR_CONFIG_SCHEMA, CoordinatorNode } from '../../services/group-coordinator';
import { action, parseInteger } from '../common';
import { untilStopSignal } from '../signals';

interface CoordinatorOptions {
  id?: string;
  port?: number;
  host?: string;
  advertisedHost?: string;
  advertisedPort?: number;
  etcd?: string;
  clusterName?: string;
  leaseTtlMs?: number;
  shards?: number;
  offsetsPartitions?: number;
  brokers?: string;
  metricsPort?: number;
  config?: string;
}

export function coordinatorCommand(): Command {
  return new Command('coordinator')
    .description(
      'run a consumer group coordinator instance (one of 1..n; groups are sharded over them) against etcd',
    )
    .option('--id <id>', 'instance id, unique per instance (default: host name + random suffix)')
    .option('--port <n>', 'gRPC port (0 = any free port)', parseInteger('--port', 0))
    .option('--host <addr>', 'address to listen on')
    .option('--advertised-host <host>', 'host clients are told to connect to (default: --host)')
    .option(
      '--advertised-port <n>',
      'port clients are told to connect to (default: the bound port)',
      parseInteger('--advertised-port', 1),
    )
    .option('--etcd <urls>', 'etcd client URLs, comma-separated')
    .option('--cluster-name <name>', 'metadata key space name (clusters may share an etcd)')
    .option(
      '--lease-ttl-ms <n>',
      'instance lease TTL: its shards move this long after a crash',
      parseInteger('--lease-ttl-ms', 1),
    )
    .option('--shards <n>', 'shard count (first coordinator of a cluster only)', parseInteger('--shards', 1))
    .option(
      '--offsets-partitions <n>',
      'partitions of __consumer_offsets when created',
      parseInteger('--offsets-partitions', 1),
    )
    .option('--brokers <host:port,...>', 'broker addresses (default: the brokers registered in etcd)')
    .option(
      '--metrics-port <n>',
      'Prometheus /metrics port (0 = any free port; default off)',
      parseInteger('--metrics-port', 0),
    )
    .option('--config <file>', 'JSON file of coordinator config keys (see docs/consumer-groups.md)')
    .action(
      action(async (opts: CoordinatorOptions) => {
        tuneGcForBufferTraffic();
        const config = loadConfig(COORDINATOR_CONFIG_SCHEMA, {
          file: opts.config,
          env: process.env,
          ignoreEnv: [...CLIENT_SECURITY_ENV, 'TIDE_BOOTSTRAP', 'TIDE_CONFIG'],
          flags: {
            coordinatorId: opts.id,
            port: opts.port,
            host: opts.host,
            advertisedHost: opts.advertisedHost,
            advertisedPort: opts.advertisedPort,
            etcdEndpoints: opts.etcd,
            clusterName: opts.clusterName,
            leaseTtlMs: opts.leaseTtlMs,
            shardCount: opts.shards,
            offsetsTopicPartitions: opts.offsetsPartitions,
            bootstrap: opts.brokers,
            metricsPort: opts.metricsPort,
          },
        });
        const logger = createLogger({ level: config.logLevel, name: 'tide-coordinator' });
        logger.info({ config: redactConfig(COORDINATOR_CONFIG_SCHEMA, config) }, 'starting tide coordinator');
        const endpoints = config.etcdEndpoints
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean);
        const security = serviceSecurityOf(config, logger);
        const store = new EtcdMetadataStore({
          endpoints,
          logger,
          clock: systemClock,
          security: security.etcd,
        });
        // The coordinator creates __consumer_offsets through the active controller.
        const controller = new ControllerClient({
          store,
          clusterName: config.clusterName,
          logger,
          clock: systemClock,
          credentials: security.channel,
        });
        let node: CoordinatorNode;
        try {
          await controller.start();
          node = await CoordinatorNode.start(config, {
            store,
            clock: systemClock,
            logger,
            internalTopics: controller,
            security,
          });
        } catch (err) {
          await controller.close().catch(() => undefined);
          await store.close().catch(() => undefined);
          security.close();
          throw err;
        }
        process.stdout.write(
          `Tide coordinator ${node.id} is ready` +
            (node.metricsPort !== undefined ? ` (metrics on port ${node.metricsPort})` : '') +
            `\nbootstrap ${node.address}\n`,
        );
        await untilStopSignal(async () => {
          logger.info('stopping: handing shards over');
          await node.stop();
        }, logger);
        await controller
          .close()
          .catch((err: unknown) => logger.warn({ err }, 'closing the controller client failed'));
        await store.close().catch((err: unknown) => logger.warn({ err }, 'closing the etcd client failed'));
        security.close();
        logger.flush();
        process.stdout.write('Tide coordinator stopped.\n');
      }),
    );
}
