/** `tide topics create|list|describe|delete|alter`. */
import { Command, InvalidArgumentError } from 'commander';
import { action, addBootstrap, collectKeyValue, collectList, parseInteger, withClient } from '../common';
import { printTable } from '../format';

export function topicsCommand(): Command {
  const topics = new Command('topics').description('create, list, describe, alter and delete topics');

  topics.addCommand(
    addBootstrap(
      new Command('create')
        .description('create a topic')
        .argument('<name>', 'topic name: [a-zA-Z0-9._-], up to 249 characters')
        .requiredOption('-p, --partitions <n>', 'number of partitions', parseInteger('--partitions', 1))
        .option(
          '-r, --replication-factor <n>',
          'replicas per partition (default: the cluster default)',
          parseInteger('--replication-factor', 1),
        )
        .option(
          '-c, --config <key=value>',
          'topic config, repeatable (e.g. retention.ms=86400000)',
          collectKeyValue,
          {},
        )
        .option('--validate-only', 'check the request without creating the topic'),
    ).action(
      action(
        async (
          name: string,
          opts: {
            partitions: number;
            replicationFactor?: number;
            config: Record<string, string>;
            validateOnly?: boolean;
            bootstrap: string;
          },
        ) => {
          await withClient(opts.bootstrap, async (tide) => {
            const created = await tide.admin().createTopic(name, {
              partitions: opts.partitions,
              replicationFactor: opts.replicationFactor,
              configs: opts.config,
              validateOnly: opts.validateOnly,
            });
            const verb = opts.validateOnly ? 'would create' : 'created';
            process.stdout.write(
              `${verb} topic ${created.name} with ${created.partitions.length} partition(s)\n`,
            );
          });
        },
      ),
    ),
  );

  topics.addCommand(
    addBootstrap(
      new Command('list').description('list topic names').option('--internal', 'include internal topics'),
    ).action(
      action(async (opts: { internal?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          for (const name of await tide.admin().listTopics({ includeInternal: opts.internal }))
            process.stdout.write(`${name}\n`);
        });
      }),
    ),
  );

  topics.addCommand(
    addBootstrap(
      new Command('describe')
        .description('partitions, leaders, offsets and configs of a topic')
        .argument('<name>')
        .option('--json', 'print JSON'),
    ).action(
      action(async (name: string, opts: { json?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          const details = await tide.admin().describeTopic(name);
          if (opts.json) {
            process.stdout.write(JSON.stringify(details, null, 2) + '\n');
            return;
          }
          const policy = details.configs.find((c) => c.name === 'cleanup.policy')?.value ?? 'delete';
          const compacted = policy.includes('compact');
          process.stdout.write(
            `Topic: ${details.topic.name}  id: ${details.topic.topicId}  partitions: ${details.topic.partitions.length}  cleanup.policy: ${policy}\n\n`,
          );
          const status = new Map(details.status.map((s) => [s.partition, s]));
          printTable(
            [
              'PARTITION',
              'LEADER',
              'EPOCH',
              'REPLICAS',
              'ISR',
              'LOG-START',
              'HW',
              'LEO',
              'BYTES',
              ...(compacted ? ['DIRTY'] : []),
            ],
            details.topic.partitions.map((p) => {
              const s = status.get(p.partition);
              const dirty = compacted ? [s ? s.dirtyRatio.toFixed(2) : '-'] : [];
              return [
                p.partition,
                p.leader,
                p.leaderEpoch,
                p.replicas.join(','),
                p.isr.join(','),
                s?.logStartOffset ?? '-',
                s?.highWatermark ?? '-',
                s?.logEndOffset ?? '-',
                s?.sizeBytes ?? '-',
                ...dirty,
              ];
            }),
          );
          process.stdout.write('\n');
          printTable(
            ['CONFIG', 'VALUE', 'SOURCE'],
            details.configs.map((c) => [c.name, c.value, c.isDefault ? 'default' : 'topic']),
          );
        });
      }),
    ),
  );

  topics.addCommand(
    addBootstrap(
      new Command('delete').description('delete a topic and all its data').argument('<name>'),
    ).action(
      action(async (name: string, opts: { bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          await tide.admin().deleteTopic(name);
          process.stdout.write(`deleted topic ${name}\n`);
        });
      }),
    ),
  );

  topics.addCommand(
    addBootstrap(
      new Command('alter')
        .description('set or delete topic configs (validated as a whole: one bad key changes nothing)')
        .argument('<name>')
        .option('--set <key=value>', 'set a config, repeatable', collectKeyValue, {})
        .option('--delete <key>', 'return a config to its default, repeatable', collectList, [])
        .option('--validate-only', 'check without changing anything'),
    ).action(
      action(
        async (
          name: string,
          opts: { set: Record<string, string>; delete: string[]; validateOnly?: boolean; bootstrap: string },
        ) => {
          if (Object.keys(opts.set).length === 0 && opts.delete.length === 0) {
            throw new InvalidArgumentError('give at least one --set key=value or --delete key');
          }
          await withClient(opts.bootstrap, async (tide) => {
            const configs = await tide
              .admin()
              .alterConfigs(name, { set: opts.set, delete: opts.delete, validateOnly: opts.validateOnly });
            printTable(
              ['CONFIG', 'VALUE', 'SOURCE'],
              configs.filter((c) => !c.isDefault).map((c) => [c.name, c.value, 'topic']),
            );
          });
        },
      ),
    ),
  );
  return topics;
}
