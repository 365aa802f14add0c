/**
 * `tide controller`: one controller instance against etcd. Run 1..n of them; one is active, the
 * others stand by and take over when its lease lapses. Prints `bootstrap <host:port>` once its
 * gRPC server is up (active or standby); SIGTERM/SIGINT resign (the controller key goes at once,
 * so a standby takes over without waiting for the lease) and exit.
 */
import { CLIENT_SECURITY_ENV } from '../security-options';
import { Command } from 'commander';
import { loadConfig, redactConfig } from '../../services/common/config';
import { tuneGcForBufferTraffic } from '../../services/common/gc-tuning';
import { systemClock } from '../../services/common/clock';
import { createLogger } from '../../services/common/logger';
import { EtcdMetadataStore } from '../../services/common/metadata/etcd';
import {
  CONTROLLER_CONFIG_SCHEMA,
  ControllerNode,
  controllerMetrics,
  etcdEndpointList,
} from '../../services/controller';
import { action, parseInteger } from '../common';
import { untilStopSignal } from '../signals';
import { serveMetrics } from '../../services/common/metrics';
import { serviceSecurityOf } from '../../services/common/security/service-security';

interface ControllerOptions {
  id?: number;
  port?: number;
  host?: string;
  etcd?: string;
  clusterName?: string;
  leaseTtlMs?: number;
  config?: string;
}

export function controllerCommand(): Command {
  return new Command('controller')
    .description('run a controller instance (one of 1..n; exactly one is active) against etcd')
    .option('--id <n>', 'controller id (unique per instance)', parseInteger('--id', 0))
    .option('--port <n>', 'gRPC port (0 = any free port)', parseInteger('--port', 0))
    .option('--host <addr>', 'address to listen on')
    .option('--etcd <urls>', 'etcd client URLs, comma-separated')
    .option('--cluster-name <name>', 'metadata key space name (clusters may share an etcd)')
    .option(
      '--lease-ttl-ms <n>',
      'controller lease TTL: failover time after a crash',
      parseInteger('--lease-ttl-ms', 1),
    )
    .option('--config <file>', 'JSON file of controller config keys (see docs/controller.md)')
    .action(
      action(async (opts: ControllerOptions) => {
        tuneGcForBufferTraffic();
        const config = loadConfig(CONTROLLER_CONFIG_SCHEMA, {
          file: opts.config,
          env: process.env,
          ignoreEnv: [...CLIENT_SECURITY_ENV, 'TIDE_BOOTSTRAP', 'TIDE_CONFIG'],
          flags: {
            controllerId: opts.id,
            port: opts.port,
            host: opts.host,
            etcdEndpoints: opts.etcd,
            clusterName: opts.clusterName,
            leaseTtlMs: opts.leaseTtlMs,
          },
        });
        const logger = createLogger({ level: config.logLevel, name: 'tide-controller' });
        logger.info({ config: redactConfig(CONTROLLER_CONFIG_SCHEMA, config) }, 'starting tide controller');
        const security = serviceSecurityOf(config, logger);
        const store = new EtcdMetadataStore({
          endpoints: etcdEndpointList(config),
          logger,
          security: security.etcd,
        });
        let node: ControllerNode;
        try {
          node = await ControllerNode.start(config, { store, clock: systemClock, logger, security });
        } catch (err) {
          await store.close().catch(() => undefined);
          security.close();
          throw err;
        }
        const metricsServer =
          config.metricsPort >= 0
            ? await serveMetrics(controllerMetrics(node).registry, {
                host: config.host,
                port: config.metricsPort,
                logger,
              })
            : undefined;
        process.stdout.write(
          `Tide controller ${config.controllerId} ${node.isActive ? `active (epoch ${node.epoch})` : 'standing by'}\n` +
            `bootstrap ${node.address}\n`,
        );
        // Resign first (the key goes at once, a standby takes over without waiting for the lease).
        await untilStopSignal(async () => {
          logger.info('stopping: resigning from the controller election');
          await node.stop();
          await metricsServer?.close();
        }, logger);
        await store.close().catch((err: unknown) => logger.warn({ err }, 'closing the etcd client failed'));
        security.close();
        logger.flush();
        process.stdout.write('Tide controller stopped.\n');
      }),
    );
}
