/** `tide groups list | describe G | reset-offsets G`: consumer groups, their members, lag and offsets. */
import { Command, InvalidArgumentError } from 'commander';
import type { ResetTarget, TopicPartition } from '../../client';
import { UsageError, action, addBootstrap, collectList, parseInteger, withClient } from '../common';
import { dash, printGroupLag, printTable } from '../format';
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

interface ResetOptions {
  topic?: string[];
  allTopics?: boolean;
  toEarliest?: boolean;
  toLatest?: boolean;
  toTime?: number;
  toDatetime?: number;
  toOffset?: number;
  shiftBy?: number;
  byDuration?: number;
  dryRun?: boolean;
  export?: boolean;
  json?: boolean;
  bootstrap: string;
}

/** An ISO-8601 duration (PnDTnHnMnS, e.g. PT1H, P1DT12H, PT0.5S) in milliseconds. */
export function parseDuration(value: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
    value.trim().toUpperCase(),
  );
  if (!m || value.trim().toUpperCase() === 'P' || /T$/.test(value.trim().toUpperCase()))
    throw new InvalidArgumentError('give an ISO-8601 duration like PT1H, PT30M, P1D or P1DT12H.');
  const [, d, h, min, sec] = m;
  return (
    Number(d ?? 0) * 86_400_000 +
    Number(h ?? 0) * 3_600_000 +
    Number(min ?? 0) * 60_000 +
    Number(sec ?? 0) * 1000
  );
}

/** `--topic t` (every partition) or `--topic t:0,2` (these partitions). */
export function parseTopicSpec(spec: string): { topic: string; partitions?: number[] } {
  const colon = spec.lastIndexOf(':');
  if (colon < 0) return { topic: spec };
  const topic = spec.slice(0, colon);
  const list = spec.slice(colon + 1);
  if (!topic || !/^\d+(,\d+)*$/.test(list))
    throw new UsageError(`--topic ${spec}: give TOPIC or TOPIC:P[,P...] with partition numbers`);
  return { topic, partitions: list.split(',').map(Number) };
}

function resetTarget(opts: ResetOptions, nowMs: number): ResetTarget {
  const chosen: ResetTarget[] = [];
  if (opts.toEarliest) chosen.push({ to: 'earliest' });
  if (opts.toLatest) chosen.push({ to: 'latest' });
  if (opts.toTime !== undefined) chosen.push({ to: 'timestamp', timestampMs: opts.toTime });
  if (opts.toDatetime !== undefined) chosen.push({ to: 'timestamp', timestampMs: opts.toDatetime });
  if (opts.byDuration !== undefined) chosen.push({ to: 'timestamp', timestampMs: nowMs - opts.byDuration });
  if (opts.toOffset !== undefined) chosen.push({ to: 'offset', offset: opts.toOffset });
  if (opts.shiftBy !== undefined) chosen.push({ to: 'shift', shiftBy: opts.shiftBy });
  if (chosen.length !== 1)
    throw new UsageError(
      'give exactly one of --to-earliest, --to-latest, --to-time, --to-datetime, --by-duration, --to-offset, --shift-by.',
    );
  return chosen[0];
}

export function groupsCommand(): Command {
  const groups = new Command('groups').description(
    'consumer groups: list, describe (members, lag), reset offsets, delete',
  );

  groups.addCommand(
    addBootstrap(
      new Command('delete')
        .description('delete a group without members: its committed offsets and its record')
        .argument('<group>'),
    ).action(
      action(async (groupId: string, opts: { bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          const { offsetsDeleted } = await tide.groups().deleteGroup(groupId);
          process.stdout.write(`deleted group ${groupId} (${offsetsDeleted} committed offset(s))\n`);
        });
      }),
    ),
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
          printGroupLag(d.partitions);
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
        .option(
          '-t, --topic <topic[:p,p]>',
          'reset every partition of this topic, or only the listed ones (repeatable)',
          collectList,
        )
        .option('--all-topics', 'every topic the group has committed offsets for')
        .option('--to-earliest', 'to the earliest offset still kept')
        .option('--to-latest', 'to the end (skip everything not yet consumed)')
        .option('--to-time <ms|iso>', 'to the first record with timestamp >= this time', parseTime)
        .option('--to-datetime <iso>', 'the same as --to-time, e.g. 2026-11-29T18:00:00Z', parseTime)
        .option(
          '--by-duration <duration>',
          'to the first record of this long ago (ISO-8601: PT1H, P1D)',
          parseDuration,
        )
        .option(
          '--to-offset <n>',
          'to this offset (clamped to what each partition holds)',
          parseInteger('--to-offset', 0),
        )
        .option(
          '--shift-by <n>',
          'move each committed offset by N (negative: back), clamped',
          parseInteger('--shift-by'),
        )
        .option('--dry-run', 'print the plan, change nothing')
        .option('--export', 'print the plan as CSV lines topic,partition,new-offset')
        .option('--json', 'print JSON'),
    ).action(
      action(async (groupId: string, opts: ResetOptions) => {
        const target = resetTarget(opts, Date.now());
        if (!opts.topic?.length && !opts.allTopics)
          throw new UsageError('give at least one --topic, or --all-topics.');
        if (opts.topic?.length && opts.allTopics)
          throw new UsageError('give --topic or --all-topics, not both.');
        const specs = (opts.topic ?? []).map(parseTopicSpec);
        await withClient(opts.bootstrap, async (tide) => {
          const admin = tide.groups();
          let topics = specs.filter((t) => !t.partitions).map((t) => t.topic);
          const partitions: TopicPartition[] = specs.flatMap((t) =>
            (t.partitions ?? []).map((partition) => ({ topic: t.topic, partition })),
          );
          if (opts.allTopics) {
            topics = [...new Set((await admin.fetchOffsets(groupId)).map((o) => o.topic))].sort();
            if (topics.length === 0)
              throw new UsageError(
                `group ${groupId} has no committed offsets; name the topics with --topic.`,
              );
          }
          const result = await admin.resetOffsets(groupId, target, {
            topics,
            partitions,
            dryRun: opts.dryRun,
          });
          if (opts.json) {
            process.stdout.write(JSON.stringify(result, null, 2) + '\n');
            return;
          }
          if (opts.export) {
            for (const p of result.plan) process.stdout.write(`${p.topic},${p.partition},${p.newOffset}\n`);
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
