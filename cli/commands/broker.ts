/** `tide broker`: one broker of a multi-process cluster (metadata in etcd). */
import * as path from 'path';
import { CLIENT_SECURITY_ENV } from '../security-options';
import { Command } from 'commander';
import { BROKER_CONFIG_SCHEMA, ClusterBroker } from '../../services/broker';
import { loadConfig, redactConfig } from '../../services/common/config';
import { tuneGcForBufferTraffic } from '../../services/common/gc-tuning';
import { systemClock } from '../../services/common/clock';
import { createLogger } from '../../services/common/logger';
import { action, parseInteger } from '../common';
import { untilStopSignal } from '../signals';

export function brokerCommand(): Command {
  return new Command('broker')
    .description('run one broker of a cluster (needs etcd and a `tide controller`)')
    .option('--id <n>', 'broker id (stable: the StatefulSet ordinal on Kubernetes)', parseInteger('--id', 0))
    .option('--port <n>', 'gRPC port (0 = any free port)', parseInteger('--port', 0))
    .option('--host <addr>', 'address to listen on')
    .option('--data <dir>', 'data folder for partition logs')
    .option('--etcd <urls>', 'comma-separated etcd client URLs')
    .option('--rack <rack>', 'rack or zone, for rack-aware placement')
    .option('--config <file>', 'JSON file of broker config keys (see docs/configuration.md)')
    .action(
      action(
        async (opts: {
          id?: number;
          port?: number;
          host?: string;
          data?: string;
          etcd?: string;
          rack?: string;
          config?: string;
        }) => {
          tuneGcForBufferTraffic();
          const config = loadConfig(BROKER_CONFIG_SCHEMA, {
            file: opts.config,
            env: process.env,
            ignoreEnv: [...CLIENT_SECURITY_ENV, 'TIDE_BOOTSTRAP'],
            flags: {
              brokerId: opts.id,
              port: opts.port,
              host: opts.host,
              dataDir: opts.data === undefined ? undefined : path.resolve(opts.data),
              etcdEndpoints: opts.etcd,
              rack: opts.rack,
            },
          });
          const logger = createLogger({ level: config.logLevel });
          logger.info({ config: redactConfig(BROKER_CONFIG_SCHEMA, config) }, 'starting tide broker');
          const node = await ClusterBroker.start(config, { clock: systemClock, logger });
          process.stdout.write(
            `Tide broker ${config.brokerId} is ready. Data in ${config.dataDir}\nbootstrap ${node.address}\n`,
          );
          await untilStopSignal(() => node.stop(), logger);
        },
      ),
    );
}
