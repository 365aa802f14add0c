/**
 * A seeded chaos run against real processes (`npm run chaos -- --seed N --duration S`, and
 * test/fault/chaos.test.ts): etcd, two controllers, three brokers behind fault proxies (with disk
 * fault files) and two group coordinators. While idempotent acks=all producers write and a
 * committer commits group offsets, a schedule drawn from the seed applies one fault at a time:
 *
 *   broker-kill / broker-pause        SIGKILL (then restart) / SIGSTOP (then SIGCONT) a broker
 *   controller-kill / controller-pause, coordinator-kill / coordinator-pause, etcd-kill / etcd-pause
 *   proxy-blackhole / proxy-cut-in    a broker's proxy holds both directions / only requests
 *   proxy-delay                       a broker's proxy delays every chunk 300 ms both ways
 *   disk-fault                        ENOSPC or EIO on write or fsync of a broker's chaos-topic
 *                                     logs; cleared at the end, the broker restarted to recover
 *
 * Each fault lasts 2-6 s, then everything heals and the run settles 3 s. Afterwards the whole
 * topic is read back and the history checker runs (acknowledged records lost, duplicated, moved,
 * reordered; an offset with two values), and the committed group offsets must never go back (a
 * fetch returning less than a commit acknowledged before it, or less than an earlier fetch).
 * Unavailability of a fault = the longest stretch, inside [fault start, heal + settle], during
 * which some partition acknowledged nothing (edges included).
 */
import { Tide } from '../../client';
import { TestCluster } from './cluster';
import { checkHistory, summarize, type HistoryReport } from './history-checker';
import { waitFor } from './processes';
import { readEverything, Workload } from './workload';

export const FAULT_KINDS = [
  'broker-kill',
  'broker-pause',
  'controller-kill',
  'controller-pause',
  'coordinator-kill',
  'coordinator-pause',
  'etcd-kill',
  'etcd-pause',
  'proxy-blackhole',
  'proxy-cut-in',
  'proxy-delay',
  'disk-fault',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ChaosOptions {
  seed: number;
  durationS: number;
  kinds?: readonly FaultKind[];
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface FaultRecord {
  kind: FaultKind;
  target: string;
  startMs: number;
  healedMs: number;
  endMs: number;
  /** Longest time some partition acknowledged nothing within [startMs, endMs]. */
  unavailableMs: number;
}

export interface ChaosReport {
  seed: number;
  durationS: number;
  faults: FaultRecord[];
  history: HistoryReport;
  historySummary: string;
  producerErrors: Record<string, number>;
  commits: { acknowledged: number; reads: number; wentBack: string[] };
  ok: boolean;
}

const TOPIC = 'chaos';
const PARTITIONS = 3;
const GROUP = 'chaos-group';
const LEASE_TTL_MS = 3_000;

/** mulberry32: a small seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const random = prng(options.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const kinds = options.kinds ?? FAULT_KINDS;
  const cluster = await TestCluster.start({
    brokers: 3,
    controllers: 2,
    leaseTtlMs: LEASE_TTL_MS,
    replicaLagTimeMaxMs: 5_000,
    proxied: true,
    diskFaults: true,
    brokerEnv: { TIDE_REPLICA_LEADER_UNREACHABLE_MS: '1000' },
  });
  const coordinatorArgs = ['--shards', '4', '--offsets-partitions', '2'];
  let tide: Tide | undefined;
  let workload: Workload | undefined;
  let stopCommits = false;
  try {
    await Promise.all(['c1', 'c2'].map((id) => cluster.startCoordinator(id, { args: coordinatorArgs })));
    tide = new Tide({ bootstrap: cluster.bootstrap(), metadataMaxAgeMs: 1_000, requestTimeoutMs: 10_000 });
    await tide.admin().createTopic(TOPIC, {
      partitions: PARTITIONS,
      replicationFactor: 3,
      configs: { 'min.insync.replicas': '2', 'flush.policy': 'sync' },
    });
    workload = new Workload(tide, TOPIC, PARTITIONS, 'chaos', 12, {
      retry: { attempts: 1_000, maxBackoffMs: 500 },
    });
    workload.start();
    const w = workload;
    await waitFor(() => w.count > 100, { what: 'first acks', timeoutMs: 60_000 });
    log(`seed ${options.seed}: cluster up, first acks; faults for ${options.durationS} s`);

    // Group offsets: commit an increasing offset, read it back; it must never go back.
    const commits = { acknowledged: 0, reads: 0, wentBack: [] as string[] };
    const groups = tide.groups();
    let lastAcked = -1;
    let lastRead = -1;
    const committer = (async () => {
      while (!stopCommits) {
        const offset = w.acked.filter((a) => a.partition === 0).length;
        try {
          await groups.commitOffsets(GROUP, [{ topic: TOPIC, partition: 0, offset }]);
          lastAcked = Math.max(lastAcked, offset);
          commits.acknowledged++;
        } catch {
          // unavailable for now
        }
        await sleep(200);
      }
    })();
    const reader = (async () => {
      while (!stopCommits) {
        const floor = lastAcked;
        try {
          const [got] = await groups.fetchOffsets(GROUP, [{ topic: TOPIC, partition: 0 }]);
          commits.reads++;
          if (got.offset < floor)
            commits.wentBack.push(`read ${got.offset} after commit ${floor} was acknowledged`);
          if (got.offset < lastRead) commits.wentBack.push(`read ${got.offset} after reading ${lastRead}`);
          lastRead = Math.max(lastRead, got.offset);
        } catch {
          // unavailable for now
        }
        await sleep(500);
      }
    })();

    const faults: FaultRecord[] = [];
    const deadline = Date.now() + options.durationS * 1_000;
    const brokerIds = [0, 1, 2];
    while (Date.now() < deadline) {
      const kind = pick(kinds);
      const holdMs = 2_000 + Math.floor(random() * 4_000);
      const startMs = Date.now();
      const target = await applyFault(cluster, kind, holdMs, pick, brokerIds, coordinatorArgs);
      const healedMs = Date.now();
      await sleep(3_000);
      const endMs = Date.now();
      const record: FaultRecord = {
        kind,
        target,
        startMs,
        healedMs,
        endMs,
        unavailableMs: unavailability(w, startMs, endMs),
      };
      faults.push(record);
      log(
        `${kind} ${target}: held ${healedMs - startMs} ms, longest partition without acks ${record.unavailableMs} ms`,
      );
    }

    // Everything back, ISRs full, then read back.
    await waitFor(
      async () => {
        const { topic } = await tide!.admin().describeTopic(TOPIC);
        return topic.partitions.every((p) => p.isr.length === 3 && p.leader >= 0);
      },
      { what: 'full ISRs after the run', timeoutMs: 60_000, intervalMs: 500 },
    ).catch((err: unknown) => log(`warning: ${String(err)}`));
    stopCommits = true;
    await Promise.all([committer, reader]);
    await workload.stop();
    const read = await readEverything(tide, TOPIC, PARTITIONS);
    const history = checkHistory(workload.acked, read);
    const ok = history.ok && commits.wentBack.length === 0;
    return {
      seed: options.seed,
      durationS: options.durationS,
      faults,
      history,
      historySummary: summarize(history),
      producerErrors: Object.fromEntries(workload.errors),
      commits,
      ok,
    };
  } finally {
    stopCommits = true;
    await Promise.race([workload?.stop(), sleep(15_000)]).catch(() => undefined);
    await Promise.race([tide?.close(), sleep(10_000)]).catch(() => undefined);
    await cluster.stop();
  }
}

/** Applies one fault for holdMs and heals it; answers what it hit. */
async function applyFault(
  cluster: TestCluster,
  kind: FaultKind,
  holdMs: number,
  pick: <T>(xs: readonly T[]) => T,
  brokerIds: number[],
  coordinatorArgs: string[],
): Promise<string> {
  const broker = pick(brokerIds);
  const controller = pick([...cluster.controllers.keys()]);
  const coordinator = pick([...cluster.coordinators.keys()]);
  switch (kind) {
    case 'broker-kill':
      await cluster.broker(broker).stop('SIGKILL');
      await sleep(holdMs);
      await cluster.startBroker(broker);
      return `broker ${broker}`;
    case 'broker-pause':
      await pauseFor(cluster.broker(broker).child.pid, holdMs);
      return `broker ${broker}`;
    case 'controller-kill':
      await cluster.controllers.get(controller)!.stop('SIGKILL');
      await sleep(holdMs);
      await cluster.startController(controller);
      return `controller ${controller}`;
    case 'controller-pause':
      await pauseFor(cluster.controllers.get(controller)!.child.pid, holdMs);
      return `controller ${controller}`;
    case 'coordinator-kill':
      await cluster.coordinator(coordinator).stop('SIGKILL');
      await sleep(holdMs);
      await cluster.startCoordinator(coordinator, { args: coordinatorArgs });
      return `coordinator ${coordinator}`;
    case 'coordinator-pause':
      await pauseFor(cluster.coordinator(coordinator).child.pid, holdMs);
      return `coordinator ${coordinator}`;
    case 'etcd-kill':
      await cluster.etcd.kill();
      await sleep(holdMs);
      await cluster.etcd.restart();
      return 'etcd';
    case 'etcd-pause':
      cluster.etcd.pause();
      await sleep(holdMs);
      cluster.etcd.resume();
      return 'etcd';
    case 'proxy-blackhole':
    case 'proxy-cut-in':
    case 'proxy-delay': {
      const proxy = cluster.proxy(broker);
      if (kind === 'proxy-blackhole') proxy.blackhole('both');
      else if (kind === 'proxy-cut-in') proxy.blackhole('in');
      else proxy.delay(300, 'both');
      await sleep(holdMs);
      proxy.heal();
      return `broker ${broker} proxy`;
    }
    case 'disk-fault': {
      const op = pick(['write', 'fsync'] as const);
      const code = pick(['ENOSPC', 'EIO']);
      cluster.injectDiskFaults(broker, [{ op, code, topic: TOPIC }]);
      await sleep(holdMs);
      cluster.injectDiskFaults(broker, []);
      // A failed log stays offline until the broker reopens it: restart (recovery runs).
      await cluster.broker(broker).stop('SIGKILL');
      await cluster.startBroker(broker);
      return `broker ${broker} ${op} ${code}`;
    }
  }
}

async function pauseFor(pid: number | undefined, holdMs: number): Promise<void> {
  if (pid === undefined) return;
  process.kill(pid, 'SIGSTOP');
  try {
    await sleep(holdMs);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

/** The longest stretch within [startMs, endMs] in which some partition acknowledged nothing. */
export function unavailability(workload: Workload, startMs: number, endMs: number): number {
  const byPartition = new Map<number, number[]>();
  for (let p = 0; p < PARTITIONS; p++) byPartition.set(p, []);
  for (const a of workload.acked) {
    if (a.atMs !== undefined && a.atMs >= startMs && a.atMs <= endMs)
      byPartition.get(a.partition)?.push(a.atMs);
  }
  let worst = 0;
  for (const times of byPartition.values()) {
    times.sort((x, y) => x - y);
    let previous = startMs;
    for (const t of [...times, endMs]) {
      worst = Math.max(worst, t - previous);
      previous = t;
    }
  }
  return worst;
}

/** Per fault kind: count, the worst, the median and the mean unavailability. */
export function summarizeFaults(
  faults: FaultRecord[],
): { kind: FaultKind; count: number; maxMs: number; medianMs: number; meanMs: number }[] {
  const byKind = new Map<FaultKind, number[]>();
  for (const f of faults) byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f.unavailableMs]);
  return [...byKind.entries()]
    .map(([kind, values]) => ({
      kind,
      count: values.length,
      maxMs: Math.max(...values),
      medianMs: [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)],
      meanMs: Math.round(values.reduce((a, b) => a + b, 0) / values.length),
    }))
    .sort((a, b) => FAULT_KINDS.indexOf(a.kind) - FAULT_KINDS.indexOf(b.kind));
}
