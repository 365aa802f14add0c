/**
 * `tide streams list | describe APP`: streams applications as the cluster knows them — the
 * topology each recorded, its running instances' status, and its consumer group (cli/streams-view.ts).
 */
import { Command } from 'commander';
import type { GroupDescription, Tide } from '../../client';
import { mermaidOf } from '../../streams';
import { TideError } from '../../services/common/errors';
import { action, addBootstrap, withClient } from '../common';
import { dash, printGroupLag, printTable } from '../format';
import {
  durationText,
  streamsDescription,
  streamsListing,
  timeText,
  topologyText,
  type StreamsDescription,
} from '../streams-view';

function partitionsText(tps: { topic: string; partition: number }[]): string {
  return tps.map((tp) => `${tp.topic}:${tp.partition}`).join(' ') || '-';
}

async function describeGroupOrNone(tide: Tide, groupId: string): Promise<GroupDescription | undefined> {
  try {
    return await tide.groups().describeGroup(groupId);
  } catch (err) {
    if (err instanceof TideError && err.code === 'GROUP_ID_NOT_FOUND') return undefined;
    throw err;
  }
}

function printDescription(d: StreamsDescription): void {
  const out = (line = '') => process.stdout.write(line + '\n');
  const g = d.group;
  out(
    `Application ${d.application}  ` +
      (g
        ? `group ${g.state}  generation ${g.generation}  ${g.members.length} member(s)`
        : 'no consumer group (not running, and no committed offsets)'),
  );
  if (d.topology) {
    out(`Topology recorded ${timeText(d.topology.recordedAtMs)} by ${d.topology.recordedBy}`);
    out();
    for (const line of topologyText(d.topology)) out(`  ${line}`);
  } else {
    out('No recorded topology (not a streams application, or never started by this version).');
  }
  out();
  if (d.instances.length > 0) {
    printTable(
      ['INSTANCE', 'MEMBER', 'HOST', 'STATE', 'TASKS', 'COMMITS', 'UPDATED'],
      d.instances.map((s) => [
        s.instance,
        s.memberId || '-',
        `${s.host}:${s.pid}`,
        s.state,
        s.tasks.length,
        s.commits,
        timeText(s.updatedAtMs),
      ]),
    );
  } else {
    out('No instance publishes its status now.');
  }
  if (g && g.members.length > 0) {
    out();
    printTable(
      ['MEMBER', 'INSTANCE-ID', 'CLIENT', 'HOST', 'PARTITIONS'],
      g.members.map((m) => [
        m.memberId,
        m.instanceId || '-',
        m.clientId,
        m.clientHost,
        partitionsText(m.owned),
      ]),
    );
  }
  if (d.tasks.length > 0) {
    out();
    printTable(
      ['TASK', 'INSTANCE', 'INPUTS', 'IN', 'OUT', 'STREAM-TIME', 'LAG', 'LATE', 'DROPPED', 'RESTORE'],
      d.tasks.map((t) => [
        t.id,
        t.instance || t.memberId || '-',
        partitionsText(t.inputs),
        dash(t.recordsIn),
        dash(t.recordsOut),
        timeText(t.streamTimeMs),
        dash(t.lag),
        dash(t.droppedLateRecords),
        dash(t.droppedRecords),
        t.restoring === undefined
          ? '-'
          : t.restoring
            ? `restoring ${t.restoredRecords}/${t.restoreTotal}`
            : `done (${t.restoredRecords})`,
      ]),
    );
  }
  if (d.globalTables.length > 0) {
    out();
    printTable(
      ['GLOBAL-TABLE', 'INSTANCE', 'TOPIC', 'STATE', 'RECORDS', 'LAG'],
      d.globalTables.map((t) => [
        t.store,
        t.instance,
        t.topic,
        t.loaded ? 'loaded' : 'loading',
        t.recordsIn,
        t.lag,
      ]),
    );
  }
  if (g && g.partitions.length > 0) {
    out();
    printGroupLag(g.partitions);
  }
  if (d.windows.length > 0) {
    out();
    out("Windows not yet closed (a final result waits until the task's stream time reaches CLOSES-AT):");
    printTable(
      ['STORE', 'TASK', 'STREAM-TIME', 'OPEN', 'NEXT-WINDOW', 'CLOSES-AT', 'WAITING-FOR'],
      d.windows.map((w) => {
        const next = w.windows[0];
        return [
          w.store,
          w.taskId,
          timeText(w.streamTimeMs),
          w.openWindows,
          next ? `[${timeText(next.start)}, ${timeText(next.end)})` : '-',
          next ? timeText(next.closesAtMs) : '-',
          next ? `${durationText(next.waitingForMs)} of stream time` : '-',
        ];
      }),
    );
  }
}

export function streamsCommand(): Command {
  const streams = new Command('streams').description(
    'streams applications: list them, describe one (topology, instances, tasks, lag, open windows)',
  );

  streams.addCommand(
    addBootstrap(
      new Command('list')
        .description('every streams application with a recorded topology')
        .option('--json', 'print JSON'),
    ).action(
      action(async (opts: { json?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          const [entries, groups] = await Promise.all([
            tide.admin().listApplicationMetadata({ keyPrefix: 'streams.', includeValues: true }),
            tide.groups().listGroups(),
          ]);
          const list = streamsListing(entries, groups);
          if (opts.json) {
            process.stdout.write(JSON.stringify(list, null, 2) + '\n');
            return;
          }
          if (list.length === 0) {
            process.stdout.write('no streams applications\n');
            return;
          }
          printTable(
            ['APPLICATION', 'STATE', 'MEMBERS', 'INSTANCES', 'SUBTOPOLOGIES', 'STORES', 'RECORDED'],
            list.map((a) => [
              a.application,
              a.state,
              a.members,
              a.instances,
              a.subtopologies,
              a.stores,
              timeText(a.recordedAtMs),
            ]),
          );
        });
      }),
    ),
  );

  streams.addCommand(
    addBootstrap(
      new Command('describe')
        .description(
          'the recorded topology, running instances, tasks with stream time and lag, input partitions, and windows not yet closed',
        )
        .argument('<application>')
        .option('--json', 'print JSON (the recorded topology, instances, tasks, group)')
        .option('--mermaid', 'print only the topology as a Mermaid flowchart'),
    ).action(
      action(async (application: string, opts: { json?: boolean; mermaid?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          const [entries, group] = await Promise.all([
            tide.admin().listApplicationMetadata({ application, keyPrefix: 'streams.', includeValues: true }),
            describeGroupOrNone(tide, application),
          ]);
          const d = streamsDescription(application, entries, group);
          if (!d.topology && !d.group) {
            throw new TideError(
              'GROUP_ID_NOT_FOUND',
              `no streams application "${application}": no recorded topology and no consumer group; see tide streams list`,
            );
          }
          if (opts.mermaid) {
            if (!d.topology)
              throw new TideError('INVALID_REQUEST', `application "${application}" has no recorded topology`);
            process.stdout.write(mermaidOf(d.topology.description));
            return;
          }
          if (opts.json) {
            process.stdout.write(JSON.stringify(d, null, 2) + '\n');
            return;
          }
          printDescription(d);
        });
      }),
    ),
  );
  return streams;
}
