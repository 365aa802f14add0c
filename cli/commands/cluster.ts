/** `tide cluster up|down|describe`. */
import * as path from 'path';
import { Command } from 'commander';
import type { Tide } from '../../client';
import { fromGrpcError } from '../../services/common/grpc/status';
import type { DescribeTopicResponse } from '../../services/common/grpc/generated/tide/v1/DescribeTopicResponse';
import { action, addBootstrap, parseInteger, withClient } from '../common';
import { printTable } from '../format';
import type { PartitionMove } from '../../client/admin';
import { clusterDown, clusterUp } from '../local-cluster';

interface PartitionRow {
  topic: string;
  partition: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  highWatermark: number | null;
  logEndOffset: number | null;
  /** Bytes of the partition's log on its leader (each replica holds about as much). */
  sizeBytes: number | null;
}

/** Asks one broker for the status of the partitions it leads. */
function describeOn(tide: Tide, address: string, topic: string): Promise<DescribeTopicResponse> {
  // The client's pooled channel: the same TLS and token as every other call of the command.
  const client = tide.cluster.pool.admin(address);
  return new Promise<DescribeTopicResponse>((resolve, reject) =>
    client.DescribeTopic({ name: topic }, { deadline: Date.now() + 5_000 }, (err, res) =>
      err ? reject(fromGrpcError(err)) : resolve(res!),
    ),
  );
}

async function describeCluster(tide: Tide): Promise<{
  clusterId: string;
  controllerId: number;
  brokers: object[];
  load: { id: number; live: boolean; replicas: number; leaders: number; diskBytes: number }[];
  underReplicated: PartitionRow[];
  offline: PartitionRow[];
  moves: PartitionMove[];
  partitions: PartitionRow[];
}> {
  const metadata = await tide.admin().metadata();
  const address = new Map(metadata.brokers.map((b) => [b.id, b.address]));
  const partitions: PartitionRow[] = [];
  for (const topic of metadata.topics) {
    // Each leader knows the offsets of its own partitions only.
    const byLeader = new Map<number, DescribeTopicResponse | null>();
    for (const p of topic.partitions) {
      if (p.leader >= 0 && !byLeader.has(p.leader) && address.has(p.leader)) {
        byLeader.set(p.leader, await describeOn(tide, address.get(p.leader)!, topic.name).catch(() => null));
      }
      const status = byLeader.get(p.leader)?.status.find((s) => s.partition === p.partition);
      partitions.push({
        topic: topic.name,
        partition: p.partition,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicas,
        isr: p.isr,
        highWatermark: status ? status.high_watermark : null,
        logEndOffset: status ? status.log_end_offset : null,
        sizeBytes: status ? status.size_bytes : null,
      });
    }
  }
  const live = new Set(metadata.brokers.map((b) => b.id));
  const brokerIds = [...new Set([...live, ...partitions.flatMap((p) => p.replicas)])].sort((a, b) => a - b);
  const load = brokerIds.map((id) => {
    const hosted = partitions.filter((p) => p.replicas.includes(id));
    return {
      id,
      live: live.has(id),
      replicas: hosted.length,
      leaders: partitions.filter((p) => p.leader === id).length,
      diskBytes: hosted.reduce((sum, p) => sum + (p.sizeBytes ?? 0), 0),
    };
  });
  const moves = await tide
    .admin()
    .listPartitionReassignments()
    .catch(() => []);
  return {
    clusterId: metadata.clusterId,
    controllerId: metadata.controllerId,
    brokers: metadata.brokers,
    load,
    underReplicated: partitions.filter((p) => p.isr.length < p.replicas.length),
    offline: partitions.filter((p) => p.leader < 0 || !live.has(p.leader)),
    moves,
    partitions,
  };
}

export function clusterCommand(): Command {
  const cluster = new Command('cluster').description('run a local multi-process cluster, or inspect one');

  cluster.addCommand(
    new Command('up')
      .description(
        'start etcd, controllers, brokers and group coordinators as separate processes, data and logs under DIR',
      )
      .requiredOption('--dir <dir>', 'folder for data, logs and cluster.json')
      .option('--brokers <n>', 'number of brokers', parseInteger('--brokers', 1), 3)
      .option('--controllers <n>', 'number of controllers', parseInteger('--controllers', 1), 2)
      .option('--coordinators <n>', 'number of group coordinators', parseInteger('--coordinators', 0), 1)
      .action(
        action(async (opts: { dir: string; brokers: number; controllers: number; coordinators: number }) => {
          // The same entry point this command runs from (bin/tide.js).
          const cli = path.resolve(process.argv[1]);
          const state = await clusterUp({
            dir: opts.dir,
            brokers: opts.brokers,
            controllers: opts.controllers,
            coordinators: opts.coordinators,
            cli,
          });
          const brokers = state.processes.filter((p) => p.role === 'broker');
          for (const p of state.processes)
            process.stdout.write(`${p.role} ${p.id}  pid ${p.pid}  ${p.address}  log ${p.logFile}\n`);
          process.stdout.write(`bootstrap ${brokers.map((b) => b.address).join(',')}\n`);
          process.stdout.write(`Stop it with: tide cluster down --dir ${state.dir}\n`);
        }),
      ),
  );

  cluster.addCommand(
    new Command('down')
      .description('stop a cluster started with `tide cluster up` (brokers first, for controlled shutdown)')
      .requiredOption('--dir <dir>', 'the folder given to `tide cluster up`')
      .action(
        action(async (opts: { dir: string }) => {
          const stopped = await clusterDown(opts.dir);
          process.stdout.write(`stopped ${stopped.length} process(es)\n`);
        }),
      ),
  );

  cluster.addCommand(
    addBootstrap(
      new Command('describe')
        .description(
          'brokers, the active controller, and every partition with its leader, replicas, ISR, HW and LEO',
        )
        .option('--json', 'print JSON'),
    ).action(
      action(async (opts: { json?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          const description = await describeCluster(tide);
          if (opts.json) {
            process.stdout.write(JSON.stringify(description, null, 2) + '\n');
            return;
          }
          process.stdout.write(
            `Cluster: ${description.clusterId}  active controller: ${description.controllerId}\n\n`,
          );
          printTable(
            ['BROKER', 'ADDRESS', 'RACK'],
            (description.brokers as { id: number; address: string; rack: string }[]).map((b) => [
              b.id,
              b.address,
              b.rack || '-',
            ]),
          );
          process.stdout.write('\n');
          printTable(
            ['BROKER', 'STATE', 'REPLICAS', 'LEADERS', 'DISK (LEADER-REPORTED)'],
            description.load.map((b) => [
              b.id,
              b.live ? 'live' : 'down',
              b.replicas,
              b.leaders,
              `${(b.diskBytes / 1048576).toFixed(1)} MiB`,
            ]),
          );
          process.stdout.write(
            `\nunder-replicated partitions: ${description.underReplicated.length}  offline partitions: ${description.offline.length}  moves in progress: ${description.moves.length}\n`,
          );
          for (const p of [...description.offline, ...description.underReplicated])
            process.stdout.write(
              `  ${p.topic}-${p.partition}: leader ${p.leader < 0 ? 'none' : p.leader}, replicas ${p.replicas.join(',')}, isr ${p.isr.join(',')}\n`,
            );
          for (const m of description.moves)
            process.stdout.write(
              `  moving ${m.topic}-${m.partition}: ${m.replicas.join(',')} -> ${m.target.join(',')} (${m.caughtUp.length}/${m.adding.length} new replicas caught up, ${m.origin})\n`,
            );
          if (description.partitions.length === 0) return;
          process.stdout.write('\n');
          printTable(
            ['TOPIC', 'PARTITION', 'LEADER', 'EPOCH', 'REPLICAS', 'ISR', 'HW', 'LEO'],
            description.partitions.map((p) => [
              p.topic,
              p.partition,
              p.leader,
              p.leaderEpoch,
              p.replicas.join(','),
              p.isr.join(','),
              p.highWatermark ?? '-',
              p.logEndOffset ?? '-',
            ]),
          );
        });
      }),
    ),
  );
  return cluster;
}
