/** `tide topics create|list|describe|delete|alter`. */
import { Command, InvalidArgumentError } from 'commander';
import type { Tide } from '../../client';
import {
  UsageError,
  action,
  addBootstrap,
  collectKeyValue,
  collectList,
  parseInteger,
  withClient,
} from '../common';
import { printTable } from '../format';

interface DescribeOptions {
  json?: boolean;
  underReplicated?: boolean;
  unavailable?: boolean;
  bootstrap: string;
}

/** The partitions (of `name`, or of every topic) that are under-replicated and/or without a live leader. */
async function describeUnhealthy(tide: Tide, name: string | undefined, opts: DescribeOptions): Promise<void> {
  const admin = tide.admin();
  if (name !== undefined) await admin.describeTopic(name); // UNKNOWN_TOPIC
  const metadata = await admin.metadata(name === undefined ? [] : [name]);
  const live = new Set(metadata.brokers.map((b) => b.id));
  const rows = metadata.topics
    .filter((t) => name === undefined || t.name === name)
    .flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partition,
        leader: p.leader,
        replicas: p.replicas,
        isr: p.isr,
        underReplicated: p.isr.length < p.replicas.length,
        unavailable: p.leader < 0 || !live.has(p.leader),
      })),
    )
    .filter((r) => (opts.underReplicated && r.underReplicated) || (opts.unavailable && r.unavailable))
    .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  if (opts.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  const what = [opts.underReplicated && 'under-replicated', opts.unavailable && 'unavailable']
    .filter(Boolean)
    .join(' or ');
  if (rows.length === 0) {
    process.stdout.write(`no ${what} partitions\n`);
    return;
  }
  printTable(
    ['TOPIC', 'PARTITION', 'LEADER', 'REPLICAS', 'ISR', 'STATE'],
    rows.map((r) => [
      r.topic,
      r.partition,
      r.leader < 0 ? 'none' : r.leader,
      r.replicas.join(','),
      r.isr.join(','),
      [r.unavailable && 'unavailable', r.underReplicated && 'under-replicated'].filter(Boolean).join(','),
    ]),
  );
}

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
        .description(
          'partitions, leaders, offsets and configs of a topic; with --under-replicated or --unavailable, the partitions of every topic (or NAME) in that state',
        )
        .argument('[name]')
        .option('--json', 'print JSON')
        .option('--under-replicated', 'only partitions whose ISR is smaller than their replica set')
        .option('--unavailable', 'only partitions without a live leader'),
    ).action(
      action(async (name: string | undefined, opts: DescribeOptions) => {
        if (opts.underReplicated || opts.unavailable) {
          await withClient(opts.bootstrap, (tide) => describeUnhealthy(tide, name, opts));
          return;
        }
        if (name === undefined)
          throw new UsageError('name the topic to describe (or give --under-replicated / --unavailable).');
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
              'LSO',
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
                s?.lastStableOffset ?? '-',
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
        .description(
          'set or delete topic configs (validated as a whole: one bad key changes nothing), or add partitions',
        )
        .argument('<name>')
        .option(
          '-p, --partitions <n>',
          'grow the topic to N partitions (never shrinks; keys then hash to different partitions)',
          parseInteger('--partitions', 1),
        )
        .option('--set <key=value>', 'set a config, repeatable', collectKeyValue, {})
        .option('--delete <key>', 'return a config to its default, repeatable', collectList, [])
        .option('--validate-only', 'check without changing anything'),
    ).action(
      action(
        async (
          name: string,
          opts: {
            set: Record<string, string>;
            delete: string[];
            partitions?: number;
            validateOnly?: boolean;
            bootstrap: string;
          },
        ) => {
          const configChange = Object.keys(opts.set).length > 0 || opts.delete.length > 0;
          if (!configChange && opts.partitions === undefined) {
            throw new InvalidArgumentError(
              'give --partitions N, or at least one --set key=value or --delete key',
            );
          }
          await withClient(opts.bootstrap, async (tide) => {
            if (opts.partitions !== undefined) {
              const grown = await tide
                .admin()
                .createPartitions(name, opts.partitions, { validateOnly: opts.validateOnly });
              const verb = opts.validateOnly ? 'would grow' : 'grew';
              process.stdout.write(
                `${verb} topic ${name} to ${grown.partitions.length} partitions (keyed records may now go to other partitions)\n`,
              );
              if (!configChange) return;
            }
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
