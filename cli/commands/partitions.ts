/**
 * `tide partitions reassign`: move replicas between brokers with a plan like Kafka's
 * kafka-reassign-partitions JSON: {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,3]}]}.
 *   --generate --topics a,b --brokers 0,1,3   prints a plan spreading those topics over the brokers
 *   --plan FILE                               starts the moves (validated whole first)
 *   --verify [--plan FILE]                    lists the moves still in flight
 *   --cancel --plan FILE                      cancels the plan's moves that have not finished
 */
import * as fs from 'fs';
import { Command } from 'commander';
import type { Tide } from '../../client';
import { UsageError, action, addBootstrap, collectList, withClient } from '../common';
import { printTable } from '../format';

interface PlanEntry {
  topic: string;
  partition: number;
  replicas: number[];
}

function readPlan(file: string): PlanEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read the plan ${file}: ${(err as Error).message}`);
  }
  const partitions = (parsed as { partitions?: unknown }).partitions;
  if (!Array.isArray(partitions)) throw new UsageError(`${file}: expected {"partitions": [...]}`);
  return partitions.map((p: Record<string, unknown>, i) => {
    const ok =
      typeof p.topic === 'string' &&
      Number.isInteger(p.partition) &&
      Array.isArray(p.replicas) &&
      p.replicas.every((r) => Number.isInteger(r));
    if (!ok)
      throw new UsageError(`${file}: partitions[${i}] needs topic, partition and replicas (broker ids)`);
    return { topic: p.topic as string, partition: p.partition as number, replicas: p.replicas as number[] };
  });
}

/** Spreads each topic's partitions over `brokers` (round robin, replication factor kept). */
async function generatePlan(tide: Tide, topics: string[], brokers: number[]): Promise<PlanEntry[]> {
  const plan: PlanEntry[] = [];
  const sorted = [...brokers].sort((a, b) => a - b);
  for (const topic of topics) {
    const { topic: described } = await tide.admin().describeTopic(topic);
    for (const p of described.partitions) {
      const rf = p.replicas.length;
      if (rf > sorted.length)
        throw new UsageError(
          `${topic} has ${rf} replicas per partition; --brokers lists only ${sorted.length}`,
        );
      // Keep the replicas already on an allowed broker, fill up round robin from the partition index.
      const keep = p.replicas.filter((id) => sorted.includes(id));
      const replicas = keep.slice(0, rf);
      for (let i = 0; replicas.length < rf; i++) {
        const candidate = sorted[(p.partition + i) % sorted.length];
        if (!replicas.includes(candidate)) replicas.push(candidate);
      }
      plan.push({ topic, partition: p.partition, replicas });
    }
  }
  return plan;
}

function printMoves(
  moves: Awaited<ReturnType<ReturnType<Tide['admin']>['listPartitionReassignments']>>,
): void {
  if (moves.length === 0) {
    process.stdout.write('no moves in progress\n');
    return;
  }
  printTable(
    ['TOPIC', 'PARTITION', 'REPLICAS', 'TARGET', 'ADDING', 'CAUGHT UP', 'REMOVING', 'ORIGIN'],
    moves.map((m) => [
      m.topic,
      m.partition,
      m.replicas.join(','),
      m.target.join(','),
      m.adding.join(','),
      `${m.caughtUp.length}/${m.adding.length}`,
      m.removing.join(','),
      m.origin,
    ]),
  );
}

export function partitionsCommand(): Command {
  const partitions = new Command('partitions').description('move partition replicas between brokers');
  partitions.addCommand(
    addBootstrap(
      new Command('reassign')
        .description(
          "generate, start, verify or cancel replica moves (a plan like Kafka's reassignment JSON)",
        )
        .option('--plan <file>', 'the plan: {"partitions":[{"topic","partition","replicas":[ids]}]}')
        .option('--generate', 'print a plan moving --topics onto --brokers')
        .option('--topics <names>', 'topics for --generate (comma-separated, repeatable)', collectList, [])
        .option('--brokers <ids>', 'broker ids for --generate, e.g. 0,1,3')
        .option('--verify', 'list the moves in progress (those of --plan, if given)')
        .option('--cancel', 'cancel the moves of --plan that have not finished')
        .option('--validate-only', 'check the plan without starting anything'),
    ).action(
      action(
        async (opts: {
          plan?: string;
          generate?: boolean;
          topics: string[];
          brokers?: string;
          verify?: boolean;
          cancel?: boolean;
          validateOnly?: boolean;
          bootstrap: string;
        }) => {
          await withClient(opts.bootstrap, async (tide) => {
            const admin = tide.admin();
            if (opts.generate) {
              const topics = opts.topics.flatMap((t) => t.split(',')).filter(Boolean);
              const brokers = (opts.brokers ?? '').split(',').filter(Boolean).map(Number);
              if (topics.length === 0 || brokers.length === 0 || brokers.some((b) => !Number.isInteger(b)))
                throw new UsageError('--generate needs --topics a,b and --brokers 0,1,3');
              const plan = await generatePlan(tide, topics, brokers);
              process.stdout.write(JSON.stringify({ version: 1, partitions: plan }, null, 2) + '\n');
              return;
            }
            if (opts.verify) {
              const plan = opts.plan ? readPlan(opts.plan) : undefined;
              const moves = await admin.listPartitionReassignments(
                plan ? [...new Set(plan.map((p) => p.topic))] : [],
              );
              const wanted = plan && new Set(plan.map((p) => `${p.topic}/${p.partition}`));
              printMoves(wanted ? moves.filter((m) => wanted.has(`${m.topic}/${m.partition}`)) : moves);
              return;
            }
            if (!opts.plan) throw new UsageError('give --plan FILE, --generate, or --verify');
            const plan = readPlan(opts.plan);
            const entries = opts.cancel ? plan.map((p) => ({ ...p, replicas: [] })) : plan;
            const outcome = await admin.alterPartitionReassignments(entries, {
              validateOnly: opts.validateOnly,
            });
            const verb = opts.cancel ? 'cancelled' : opts.validateOnly ? 'valid:' : 'started';
            process.stdout.write(
              `${verb} ${outcome.accepted} move(s); ${outcome.unchanged} partition(s) unchanged\n`,
            );
          });
        },
      ),
    ),
  );
  return partitions;
}
