/**
 * What one `npm run bench:peers` runs: per workload, the systems and configurations, in order.
 * Every case starts its own servers and stops them (also on failure), so each row's peak RSS is
 * its own.
 */
import { nativeNatsRow, nativeRedisRow, buildJsBench } from './native';
import type { PeerBenchOptions, SystemId } from './options';
import { startNatsTarget } from './targets/nats';
import { startRedisTarget } from './targets/redis';
import { startTideTarget } from './targets/tide';
import type { ResultRow, Target, WorkloadId } from './types';
import { runLatency, runThroughput } from './workloads';

export interface BenchCase {
  workload: WorkloadId;
  system: SystemId;
  /** For progress lines and failure messages. */
  label: string;
  run(): Promise<ResultRow>;
}

/** A case that cannot run here (a missing optional tool): reported, not a failure. */
export class SkippedCase extends Error {}

interface TargetSpec {
  system: SystemId;
  label: string;
  replicas: 1 | 3;
  start(): Promise<Target>;
}

function targets(replicas: 1 | 3): TargetSpec[] {
  const tide = (flush: 'sync' | 'interval'): TargetSpec => ({
    system: 'tide',
    label: `Tide R${replicas} flush.policy=${flush}`,
    replicas,
    start: () => startTideTarget(replicas, flush),
  });
  const specs: TargetSpec[] = [
    tide('sync'),
    tide('interval'),
    { system: 'nats', label: `JetStream R${replicas}`, replicas, start: () => startNatsTarget(replicas) },
  ];
  if (replicas === 1) {
    // Redis replication is asynchronous (WAIT acknowledges receipt, not durability): no R3 row.
    for (const fsync of ['everysec', 'always'] as const) {
      specs.push({
        system: 'redis',
        label: `Redis appendfsync ${fsync}`,
        replicas,
        start: () => startRedisTarget(fsync),
      });
    }
  }
  return specs;
}

async function onTarget(spec: TargetSpec, fn: (t: Target) => Promise<ResultRow>): Promise<ResultRow> {
  const target = await spec.start();
  try {
    return await fn(target);
  } finally {
    await target.close();
  }
}

/** The cases of every selected workload and system, in run order. */
export function buildPlan(options: PeerBenchOptions): BenchCase[] {
  const cases: BenchCase[] = [];
  const add = (
    workload: WorkloadId,
    spec: TargetSpec,
    label: string,
    fn: (t: Target) => Promise<ResultRow>,
  ) =>
    cases.push({
      workload,
      system: spec.system,
      label: `W${workload} ${spec.label} ${label}`,
      run: () => onTarget(spec, fn),
    });
  let jsbench: Promise<{ binary?: string; reason?: string }> | undefined;
  const nativeNats = (workload: WorkloadId, nodes: 1 | 3, size: number) =>
    cases.push({
      workload,
      system: 'nats',
      label: `W${workload} JetStream R${nodes} native Go client ${size} B`,
      run: async () => {
        jsbench ??= buildJsBench();
        const { binary, reason } = await jsbench;
        if (!binary) throw new SkippedCase(reason);
        return nativeNatsRow(binary, nodes, options.records, size, options.inflight);
      },
    });

  for (const workload of options.workloads) {
    if (workload === 1 || workload === 2) {
      const replicas = workload === 1 ? 1 : 3;
      for (const size of options.sizes) {
        for (const spec of targets(replicas)) {
          add(workload, spec, `${size} B`, (t) => runThroughput(t, workload, size, 1, options));
        }
        if (!options.native) continue;
        if (workload === 1) {
          for (const fsync of ['everysec', 'always'] as const) {
            cases.push({
              workload,
              system: 'redis',
              label: `W1 redis-benchmark appendfsync ${fsync} ${size} B`,
              run: () => nativeRedisRow(fsync, options.records, size),
            });
          }
        }
        nativeNats(workload, replicas, size);
      }
    } else if (workload === 3) {
      for (const spec of [...targets(1), ...targets(3)]) {
        add(3, spec, `${options.sizes[0]} B at ${options.rate}/s`, (t) =>
          runLatency(t, options.sizes[0], options),
        );
      }
    } else {
      for (const spec of targets(1)) {
        add(4, spec, `${options.partitions} partitions`, (t) =>
          runThroughput(t, 4, options.sizes[0], options.partitions, options, false),
        );
      }
    }
  }
  return cases.filter((c) => options.systems.includes(c.system));
}
