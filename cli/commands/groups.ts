/** `tide groups list | describe G | reset-offsets G`: consumer groups, their members, lag and offsets. */
import { Command, InvalidArgumentError } from 'commander';
import type { ResetTarget, TopicPartition } from '../../client';
import { action, addBootstrap, collectList, parseInteger, withClient } from '../common';
import { printTable } from '../format';
import { parseTime } from './consume';

function partitionsText(tps: TopicPartition[]): string {
  const byTopic = new Map<string, number[]>();
  for (const tp of tps) {
    let list = byTopic.get(tp.topic);
    if (!list) byTopic.set(tp.topic, (list = []));
    list.push(tp.partition);
  }
  return [...byTopic].map(([topic, ps]) => `${topic}:${ps.sort((a, b) => a - b).join(',')}`).join(' ') || '-';
}

const dash = (n: number) => (n < 0 ? '-' : n);

interface ResetOptions {
  topic?: string[];
  toEarliest?: boolean;
  toLatest?: boolean;
  toTime?: number;
  toOffset?: number;
  dryRun?: boolean;
  json?: boolean;
  bootstrap: string;
}

function resetTarget(opts: ResetOptions): ResetTarget {
  const chosen: ResetTarget[] = [];
  if (opts.toEarliest) chosen.push({ to: 'earliest' });
  if (opts.toLatest) chosen.push({ to: 'latest' });
  if (opts.toTime !== undefined) chosen.push({ to: 'timestamp', timestampMs: opts.toTime });
  if (opts.toOffset !== undefined) chosen.push({ to: 'offset', offset: opts.toOffset });
  if (chosen.length !== 1)
    throw new InvalidArgumentError('give exactly one of --to-earliest, --to-latest, --to-time, --to-offset.');
  return chosen[0];
}

export function groupsCommand(): Command {
  const groups = new Command('groups').description(
    'consumer groups: list, describe (members, lag), reset offsets',
  );

  groups.addCommand(
    addBootstrap(
      new Command('list')
        .description('every consumer group with its state and member count')
        .option('--json', 'print JSON'),
    ).action(
      action(async (opts: { json?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          const list = await tide.groups().listGroups();
          if (opts.json) {
            process.stdout.write(JSON.stringify(list, null, 2) + '\n');
            return;
          }
          if (list.length === 0) {
            process.stdout.write('no consumer groups\n');
            return;
          }
          printTable(
            ['GROUP', 'STATE', 'MEMBERS', 'COORDINATOR'],
            list.map((g) => [g.groupId, g.state, g.members, g.coordinatorId]),
          );
        });
      }),
    ),
  );

  groups.addCommand(
    addBootstrap(
      new Command('describe')
        .description(
          'members with their partitions, and per partition the committed offset, end offset and lag',
        )
        .argument('<group>')
        .option('--json', 'print JSON'),
    ).action(
      action(async (groupId: string, opts: { json?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          const d = await tide.groups().describeGroup(groupId);
          if (opts.json) {
            process.stdout.write(JSON.stringify(d, null, 2) + '\n');
            return;
          }
          process.stdout.write(
            `Group ${d.groupId}  state ${d.state}  generation ${d.generation}  assignor ${d.assignor}  coordinator ${d.coordinatorId}\n\n`,
          );
          if (d.members.length > 0) {
            printTable(
              ['MEMBER', 'INSTANCE', 'CLIENT', 'HOST', 'EPOCH', 'PARTITIONS', 'REVOKING'],
              d.members.map((m) => [
                m.memberId,
                m.instanceId || '-',
                m.clientId || '-',
                m.clientHost || '-',
                m.memberEpoch,
                partitionsText(m.owned),
                partitionsText(m.revoking),
              ]),
            );
            process.stdout.write('\n');
          } else {
            process.stdout.write('no active members\n\n');
          }
          printTable(
            ['TOPIC', 'PARTITION', 'COMMITTED', 'END', 'LAG', 'MEMBER'],
            d.partitions.map((p) => [
              p.topic,
              p.partition,
              dash(p.committedOffset),
              dash(p.endOffset),
              dash(p.lag),
              p.memberId || '-',
            ]),
          );
          const total = d.partitions.reduce((sum, p) => sum + Math.max(0, p.lag), 0);
          process.stdout.write(`\ntotal lag ${total}\n`);
        });
      }),
    ),
  );

  groups.addCommand(
    addBootstrap(
      new Command('reset-offsets')
        .description(
          "move a group's committed offsets; works while its consumers run (they are fenced and continue from the new offsets)",
        )
        .argument('<group>')
        .option('-t, --topic <topic>', 'reset every partition of this topic (repeatable)', collectList)
        .option('--to-earliest', 'to the earliest offset still kept')
        .option('--to-latest', 'to the end (skip everything not yet consumed)')
        .option('--to-time <ms|iso>', 'to the first record with timestamp >= this time', parseTime)
        .option(
          '--to-offset <n>',
          'to this offset (clamped to what each partition holds)',
          parseInteger('--to-offset', 0),
        )
        .option('--dry-run', 'print the plan, change nothing')
        .option('--json', 'print JSON'),
    ).action(
      action(async (groupId: string, opts: ResetOptions) => {
        const target = resetTarget(opts);
        if (!opts.topic?.length) throw new InvalidArgumentError('give at least one --topic.');
        await withClient(opts.bootstrap, async (tide) => {
          const result = await tide
            .groups()
            .resetOffsets(groupId, target, { topics: opts.topic, dryRun: opts.dryRun });
          if (opts.json) {
            process.stdout.write(JSON.stringify(result, null, 2) + '\n');
            return;
          }
          printTable(
            ['TOPIC', 'PARTITION', 'CURRENT', 'NEW'],
            result.plan.map((p) => [p.topic, p.partition, dash(p.currentOffset), p.newOffset]),
          );
          process.stdout.write(
            result.applied
              ? `\nreset ${result.plan.length} partition(s); members fenced to generation ${result.generation}\n`
              : '\ndry run: nothing changed\n',
          );
        });
      }),
    ),
  );
  return groups;
}
