/** `tide context list | current | use NAME | set NAME --bootstrap B | delete NAME`: the config file's contexts. */
import { Command } from 'commander';
import { action, rootOf, UsageError } from '../common';
import { configFilePath, readConfigFile, writeConfigFile } from '../config-file';
import { printTable } from '../format';

function fileOf(command: Command): string {
  return configFilePath(rootOf(command).opts<{ configFile?: string }>().configFile, process.env);
}

export function contextCommand(): Command {
  const context = new Command('context').description(
    'named connection settings in the config file (~/.config/tide/config.yaml or --config-file)',
  );

  context.addCommand(
    new Command('list').description('every context; * marks the current one').action(
      action(async (_opts: object, command: Command) => {
        const file = fileOf(command);
        const config = readConfigFile(file);
        const names = Object.keys(config.contexts);
        if (names.length === 0) {
          process.stdout.write(`no contexts in ${file}\n`);
          return;
        }
        printTable(
          ['CURRENT', 'NAME', 'BOOTSTRAP'],
          names.map((n) => [n === config.currentContext ? '*' : '', n, config.contexts[n].bootstrap ?? '-']),
        );
      }),
    ),
  );

  context.addCommand(
    new Command('current').description('print the current context').action(
      action(async (_opts: object, command: Command) => {
        const file = fileOf(command);
        const current = readConfigFile(file).currentContext;
        if (current === undefined)
          throw new UsageError(`no current context in ${file}; run tide context use NAME`);
        process.stdout.write(`${current}\n`);
      }),
    ),
  );

  context.addCommand(
    new Command('use')
      .description('make NAME the current context')
      .argument('<name>')
      .action(
        action(async (name: string, _opts: object, command: Command) => {
          const file = fileOf(command);
          const config = readConfigFile(file);
          if (!config.contexts[name]) {
            const known = Object.keys(config.contexts).join(', ') || 'none';
            throw new UsageError(
              `no context "${name}" in ${file} (contexts: ${known}); add it with tide context set ${name} --bootstrap HOST:PORT`,
            );
          }
          writeConfigFile(file, { ...config, currentContext: name });
          process.stdout.write(`switched to context ${name}\n`);
        }),
      ),
  );

  context.addCommand(
    new Command('set')
      .description('add or change context NAME')
      .argument('<name>')
      .option('-b, --bootstrap <host:port,...>', 'broker address(es) of this context (required)')
      .option('--use', 'also make it the current context')
      .action(
        action(async (name: string, opts: { use?: boolean }, command: Command) => {
          // The root also has -b, and may have taken it.
          const bootstrap = command.optsWithGlobals<{ bootstrap?: string }>().bootstrap;
          if (!bootstrap)
            throw new UsageError("give the context's brokers: --bootstrap HOST:PORT[,HOST:PORT]");
          const file = fileOf(command);
          const config = readConfigFile(file);
          config.contexts[name] = { ...config.contexts[name], bootstrap };
          if (opts.use || config.currentContext === undefined) config.currentContext = name;
          writeConfigFile(file, config);
          process.stdout.write(`context ${name} saved in ${file}\n`);
        }),
      ),
  );

  context.addCommand(
    new Command('delete')
      .description('remove context NAME')
      .argument('<name>')
      .action(
        action(async (name: string, _opts: object, command: Command) => {
          const file = fileOf(command);
          const config = readConfigFile(file);
          if (!config.contexts[name]) throw new UsageError(`no context "${name}" in ${file}`);
          delete config.contexts[name];
          if (config.currentContext === name) config.currentContext = undefined;
          writeConfigFile(file, config);
          process.stdout.write(`deleted context ${name}\n`);
        }),
      ),
  );
  return context;
}
