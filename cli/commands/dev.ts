/** `tide dev`: a complete single-node Tide in this process, stopped cleanly by Ctrl-C. */
import * as path from 'path';
import { CLIENT_SECURITY_ENV } from '../security-options';
import { Command } from 'commander';
import { loadConfig, redactConfig } from '../../services/common/config';
import { tuneGcForBufferTraffic } from '../../services/common/gc-tuning';
import { systemClock } from '../../services/common/clock';
import { createLogger } from '../../services/common/logger';
import { DEV_CONFIG_SCHEMA } from '../dev/dev-config';
import { DevNode } from '../dev/dev-node';
import { action, parseInteger } from '../common';
import { untilStopSignal } from '../signals';

export function devCommand(): Command {
  return new Command('dev')
    .description('run a complete single-node Tide (controller + broker, embedded metadata) in this process')
    .option('--data <dir>', 'data folder (logs and metadata); kept across restarts', './tide-data')
    .option('--port <n>', 'gRPC port (0 = any free port)', parseInteger('--port', 0), 9092)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option(
      '--config <file>',
      'JSON file of broker config keys and offsetsRetentionMs (see docs/configuration.md)',
    )
    .action(
      action(async (opts: { data: string; port: number; host: string; config?: string }) => {
        tuneGcForBufferTraffic();
        const config = loadConfig(DEV_CONFIG_SCHEMA, {
          file: opts.config,
          env: process.env,
          ignoreEnv: [...CLIENT_SECURITY_ENV, 'TIDE_BOOTSTRAP'],
          flags: { dataDir: path.resolve(opts.data), port: opts.port, host: opts.host },
        });
        const logger = createLogger({ level: config.logLevel });
        logger.info({ config: redactConfig(DEV_CONFIG_SCHEMA, config) }, 'starting tide dev');
        const node = await DevNode.start(config, { clock: systemClock, logger });
        // Handlers first: a signal sent as soon as the ready lines are read must stop the node cleanly.
        const stopped = untilStopSignal(() => node.stop(), logger);
        process.stdout.write(`Tide dev is ready. Data in ${config.dataDir}\nbootstrap ${node.address}\n`);
        process.stdout.write(`Try: npx tide topics create demo --partitions 3 --bootstrap ${node.address}\n`);
        await stopped;
        process.stdout.write('Tide stopped.\n');
      }),
    );
}
