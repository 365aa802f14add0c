/**
 * `npm run bench:cluster -- --reassign`: the cost of moving a replica of a big partition.
 *
 * 3 brokers, etcd and a controller as processes on this machine; one partition with replication
 * factor 2 (min.insync.replicas 2) on brokers A (leader) and B is filled with `--reassign-mib` MiB
 * (1 KiB records); then single `--size` B records are produced at `--reassign-rate` records/s
 * (acks=all, lingerMs 0) for `--reassign-idle-seconds`, idle; then the partition's replicas are
 * reassigned from [A, B] to [A, C] (C, the third broker, copies the whole partition from A and
 * joins the ISR, then B's copy is dropped) while the same producer keeps its rate. Reported: the
 * move's time (request to the reassignment gone) and rate (partition bytes / time), and produce
 * p50/p99 idle and during the move. `--reassign-throttle-mib N` sets every broker's
 * reassignmentThrottleBytesPerSecond to N MiB/s (0 = unthrottled). For each window it also prints
 * what the runtime of A, B and C did (full GCs, GC pause time, longest event-loop delay, from each
 * broker's /metrics; bench/broker-runtime.ts): where a latency tail comes from.
 *
 *   npm run bench:cluster -- --reassign [--reassign-mib 1024] [--reassign-throttle-mib 0]
 *       [--reassign-rate 1000] [--reassign-idle-seconds 10] [--size 100] [--flush os|sync]
 */
import { randomBytes } from 'crypto';
import * as os from 'os';
import { Tide, type Producer } from '../client';
import { TestCluster } from '../test/harness/cluster';
import { freePorts } from '../test/harness/etcd';
import { runtimeDelta, scrapeRuntime, type RuntimeSample, type RuntimeWindow } from './broker-runtime';
import { percentile } from './stats';

export interface ReassignOptions {
  mib: number;
  throttleMib: number;
  rate: number;
  idleSeconds: number;
  size: number;
  flush: string;
}

export function parseReassignArgs(argv: string[]): ReassignOptions {
  const options: ReassignOptions = {
    mib: 1024,
    throttleMib: 0,
    rate: 1_000,
    idleSeconds: 10,
    size: 100,
    flush: 'os',
  };
  const number = (flag: string, value: string | undefined, min: number): number => {
    const n = Number(value);
    if (value === undefined || !Number.isFinite(n) || n < min)
      throw new Error(`${flag} needs a number >= ${min}, got ${value ?? 'nothing'}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--reassign') continue;
    const value = argv[++i];
    if (flag === '--reassign-mib') options.mib = number(flag, value, 1);
    else if (flag === '--reassign-throttle-mib') options.throttleMib = number(flag, value, 0);
    else if (flag === '--reassign-rate') options.rate = number(flag, value, 1);
    else if (flag === '--reassign-idle-seconds') options.idleSeconds = number(flag, value, 1);
    else if (flag === '--size') options.size = number(flag, value, 1);
    else if (flag === '--flush') options.flush = value;
    else throw new Error(`unknown flag ${flag} with --reassign; see the header of bench/reassign.ts`);
  }
  return options;
}

/** Sends single records at a fixed rate on a 1 ms tick (as bench/latency.ts) until stopped. */
class RateProbe {
  readonly samples: number[] = [];
  private stopped = false;
  private readonly pending: Promise<unknown>[] = [];
  private loop: Promise<void> | undefined;
  failures = 0;

  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
    private readonly value: Buffer,
    private readonly rate: number,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<number[]> {
    this.stopped = true;
    await this.loop;
    await Promise.all(this.pending);
    return this.samples;
  }

  private async run(): Promise<void> {
    const perTick = this.rate / 1000;
    const start = performance.now();
    let owed = 0;
    for (let tick = 0; !this.stopped; tick++) {
      const wait = start + tick - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      owed += perTick;
      for (; owed >= 1; owed--) {
        const t0 = performance.now();
        this.pending.push(
          this.producer.send(this.topic, { value: this.value, partition: 0 }).then(
            () => void this.samples.push(performance.now() - t0),
            () => void this.failures++,
          ),
        );
      }
    }
  }
}

async function fill(producer: Producer, topic: string, mib: number): Promise<void> {
  // Incompressible 1 KiB values, 1,000 to a batch: about 1 MiB per sendBatch.
  const pool = randomBytes(1024 * 1024 + 1024);
  const values = Array.from({ length: 1000 }, (_, i) => pool.subarray(i * 1024, i * 1024 + 1024));
  const pending: Promise<unknown>[] = [];
  const batches = Math.ceil((mib * 1024 * 1024) / (1000 * 1024));
  for (let i = 0; i < batches; i++) {
    pending.push(producer.sendBatch(topic, values, { partition: 0 }));
    if (pending.length % 16 === 0) await producer.ready();
  }
  await Promise.all(pending);
}

const ms = (v: number) => v.toFixed(2);

export async function reassignBench(options: ReassignOptions): Promise<void> {
  const throttle = Math.round(options.throttleMib * 1024 * 1024);
  const metricsPorts = await freePorts(3);
  const cluster = await TestCluster.start({
    brokers: 3,
    controllers: 1,
    leaseTtlMs: 2_000,
    replicaLagTimeMaxMs: 10_000,
    brokerEnv: { TIDE_REASSIGNMENT_THROTTLE_BYTES_PER_SECOND: String(throttle), TIDE_LOG_LEVEL: 'warn' },
    brokerSetup: (id) => ({ env: { TIDE_METRICS_PORT: String(metricsPorts[id]) } }),
  });
  const runtimes = () => Promise.all(metricsPorts.map((port) => scrapeRuntime(port)));
  const tide = new Tide({ bootstrap: cluster.bootstrap(), metadataMaxAgeMs: 500 });
  try {
    const admin = tide.admin();
    await admin.createTopic('moving', {
      partitions: 1,
      replicationFactor: 2,
      configs: { 'min.insync.replicas': '2', 'flush.policy': options.flush },
    });
    const [leader, follower] = (await admin.metadata(['moving'])).topics[0].partitions[0].replicas;
    const spare = [0, 1, 2].find((id) => id !== leader && id !== follower)!;
    process.stdout.write(
      `\nTide cluster: 3 brokers + etcd + 1 controller as processes on this machine; 1 partition, RF=2, ` +
        `min.insync.replicas=2, flush.policy=${options.flush}; reassignmentThrottleBytesPerSecond=` +
        `${throttle === 0 ? '0 (unthrottled)' : `${options.throttleMib} MiB/s`}\n`,
    );
    const bulk = tide.producer({ acks: 'all' });
    const filledAt = performance.now();
    await fill(bulk, 'moving', options.mib);
    await bulk.close();
    process.stdout.write(
      `filled ${options.mib} MiB (1 KiB records, acks=all) in ${((performance.now() - filledAt) / 1000).toFixed(1)} s\n`,
    );

    const producer = tide.producer({ acks: 'all', lingerMs: 0 });
    await producer.connect();
    const value = Buffer.alloc(options.size, 97);
    // Idle: one warm-up second, then the timed window.
    const warm = new RateProbe(producer, 'moving', value, options.rate);
    warm.start();
    await new Promise((r) => setTimeout(r, 1_000));
    await warm.stop();
    const idleProbe = new RateProbe(producer, 'moving', value, options.rate);
    const idleStart = await runtimes();
    idleProbe.start();
    await new Promise((r) => setTimeout(r, options.idleSeconds * 1_000));
    const idle = await idleProbe.stop();
    const idleEnd = await runtimes();

    const duringProbe = new RateProbe(producer, 'moving', value, options.rate);
    const movedAt = performance.now();
    await admin.alterPartitionReassignments([{ topic: 'moving', partition: 0, replicas: [leader, spare] }]);
    duringProbe.start();
    while ((await admin.listPartitionReassignments()).length > 0)
      await new Promise((r) => setTimeout(r, 100));
    const moveSec = (performance.now() - movedAt) / 1000;
    const during = await duringProbe.stop();
    const moveEnd = await runtimes();
    await producer.close();
    const failures = idleProbe.failures + duringProbe.failures;
    const after = (await admin.metadata(['moving'])).topics[0].partitions[0];

    const bytes = options.mib * 1024 * 1024;
    process.stdout.write(
      `\nmove [${leader}, ${follower}] -> [${leader}, ${spare}] of ${options.mib} MiB: ${moveSec.toFixed(1)} s, ` +
        `${(bytes / moveSec / 1024 / 1024).toFixed(1)} MiB/s (replicas after: [${after.replicas.join(', ')}], ISR [${after.isr.join(', ')}])\n`,
    );
    const row = (label: string, s: number[]) =>
      `${label.padEnd(12)} ${String(s.length).padStart(8)}  ${ms(percentile(s, 50)).padStart(7)}  ${ms(percentile(s, 99)).padStart(7)}  ${ms(percentile(s, 100)).padStart(8)}\n`;
    process.stdout.write(
      `\nproduce, send to ack of one ${options.size} B record at ${options.rate.toLocaleString('en')} records/s, lingerMs 0, acks=all:\n` +
        `${'window'.padEnd(12)} ${'records'.padStart(8)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ${'max ms'.padStart(8)}\n` +
        row('idle', idle) +
        row('during move', during) +
        `p99 during / idle: ${(percentile(during, 99) / percentile(idle, 99)).toFixed(2)}x; failed writes: ${failures}; ` +
        `load average ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}\n` +
        runtimeTable(
          [
            [`A ${leader} (leader)`, leader],
            [`B ${follower} (leaves)`, follower],
            [`C ${spare} (new)`, spare],
          ],
          idleStart,
          idleEnd,
          moveEnd,
        ),
    );
  } finally {
    await tide.close().catch(() => undefined);
    await cluster.stop();
  }
}

/** Per broker: full GCs, GC pause ms and the longest event-loop delay, idle and during the move. */
function runtimeTable(
  brokers: [string, number][],
  idleStart: RuntimeSample[],
  idleEnd: RuntimeSample[],
  moveEnd: RuntimeSample[],
): string {
  const cells = (w: RuntimeWindow) =>
    `${String(w.fullGcs).padStart(8)} ${w.gcMs.toFixed(0).padStart(7)} ${w.eventLoopDelayMaxMs.toFixed(0).padStart(9)}`;
  let out =
    `\nbroker runtime (/metrics)   ${'idle'.padEnd(26)}  during move\n` +
    `${''.padEnd(26)} full GCs   GC ms  max delay  full GCs   GC ms  max delay (ms)\n`;
  for (const [label, id] of brokers) {
    const idle = runtimeDelta(idleStart[id], idleEnd[id]);
    const move = runtimeDelta(idleEnd[id], moveEnd[id]);
    out += `${label.padEnd(26)} ${cells(idle)}  ${cells(move)}\n`;
  }
  return out;
}
