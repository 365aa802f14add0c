/**
 * The `tide` command: `tide dev` runs a single-node Tide; the other commands are clients of a
 * running cluster (see `tide <command> --help`).
 */
import { Command, CommanderError, Option } from 'commander';
import packageJson from '../package.json';
import { brokerCommand } from './commands/broker';
import { clusterCommand } from './commands/cluster';
import { consumeCommand } from './commands/consume';
import { controllerCommand } from './commands/controller';
import { coordinatorCommand } from './commands/coordinator';
import { groupsCommand } from './commands/groups';
import { transactionsCommand } from './commands/transactions';
import { devCommand } from './commands/dev';
import { produceCommand } from './commands/produce';
import { topicsCommand } from './commands/topics';
import { partitionsCommand } from './commands/partitions';
import { recordsCommand } from './commands/records';
import { brokersCommand } from './commands/brokers';
import { aclsCommand } from './commands/acls';
import { quotasCommand } from './commands/quotas';
import { completionCommand } from './commands/completion';
import { contextCommand } from './commands/context';
import { addSecurityOptions } from './security-options';
import { EXIT_USAGE, bootstrapOption, exitOverrideEverywhere, reportError } from './common';

function program(): Command {
  const tide = new Command('tide')
    .description('Tide: a distributed commit log in the model of Apache Kafka, gRPC-native')
    .version(packageJson.version)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addOption(bootstrapOption())
    .addOption(
      new Option(
        '--config-file <path>',
        'config file with named contexts (default: TIDE_CONFIG_FILE or ~/.config/tide/config.yaml)',
      ),
    )
    .addOption(
      new Option(
        '--context <name>',
        'use this context of the config file instead of its current-context',
      ).env('TIDE_CONTEXT'),
    );
  addSecurityOptions(tide);
  tide.addCommand(devCommand());
  tide.addCommand(controllerCommand());
  tide.addCommand(brokerCommand());
  tide.addCommand(coordinatorCommand());
  tide.addCommand(topicsCommand());
  tide.addCommand(partitionsCommand());
  tide.addCommand(recordsCommand());
  tide.addCommand(brokersCommand());
  tide.addCommand(aclsCommand());
  tide.addCommand(quotasCommand());
  tide.addCommand(produceCommand());
  tide.addCommand(consumeCommand());
  tide.addCommand(transactionsCommand());
  tide.addCommand(clusterCommand());
  tide.addCommand(groupsCommand());
  tide.addCommand(contextCommand());
  tide.addCommand(completionCommand());
  exitOverrideEverywhere(tide);
  return tide;
}

/** A closed output pipe (`tide ... | head`) ends the command quietly, as `cat` does. */
function endQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
}

/**
 * grpc-js passes the dialled host as the TLS server name even when it is an IP address, and Node
 * warns (DEP0123) on every such connection; the CLI's one-line output should not carry that noise.
 */
function dropIpServerNameWarning(): void {
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const code =
      typeof rest[0] === 'object' && rest[0] !== null ? (rest[0] as { code?: string }).code : rest[1];
    if (code === 'DEP0123') return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}

async function main(argv: string[]): Promise<void> {
  endQuietlyOnClosedPipe();
  dropIpServerNameWarning();
  try {
    await program().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; usage errors were already printed by commander.
      process.exitCode = err.exitCode === 0 ? 0 : EXIT_USAGE;
      return;
    }
    process.exitCode = reportError(err);
  }
}

void main(process.argv);
