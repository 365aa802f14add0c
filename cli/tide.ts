/**
 * The `tide` command: `tide dev` runs a single-node Tide; the other commands are clients of a
 * running cluster (see `tide <command> --help`).
 */
import { Command, CommanderError } from 'commander';
import packageJson from '../package.json';
import { brokerCommand } from './commands/broker';
import { clusterCommand } from './commands/cluster';
import { consumeCommand } from './commands/consume';
import { controllerCommand } from './commands/controller';
import { coordinatorCommand } from './commands/coordinator';
import { groupsCommand } from './commands/groups';
import { devCommand } from './commands/dev';
import { produceCommand } from './commands/produce';
import { topicsCommand } from './commands/topics';
import { EXIT_USAGE, reportError } from './common';

function program(): Command {
  const tide = new Command('tide')
    .description('Tide: a distributed commit log in the model of Apache Kafka, gRPC-native')
    .version(packageJson.version)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  tide.addCommand(devCommand());
  tide.addCommand(controllerCommand());
  tide.addCommand(brokerCommand());
  tide.addCommand(coordinatorCommand());
  tide.addCommand(topicsCommand());
  tide.addCommand(produceCommand());
  tide.addCommand(consumeCommand());
  tide.addCommand(clusterCommand());
  tide.addCommand(groupsCommand());
  return tide;
}

async function main(argv: string[]): Promise<void> {
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
