/**
 * The partitions sweep of `npm run bench`: for each partition count, a fresh `tide dev` broker
 * (RF=1) in its own process and a topic with that many partitions; then
 *   - created: from the CreateTopic call until every partition answers ListOffsets;
 *   - produce: `records` records of `size` bytes from one producer through sendBatch without a
 *     partition (keyless records: the sticky partitioner's cheap path, a batch per partition in
 *     turn), acks=leader; records/s and broker CPU seconds per million records;
 *   - consume: one consumer assigned every partition reads them all back as record objects;
 *   - RSS: the broker's resident memory after consuming, and its peak (VmHWM);
 *   - stop: SIGTERM (clean shutdown) until the broker process exits;
 *   - restart: a new broker on the same data, from its spawn until every partition answers
 *     ListOffsets again.
 * Rates are also printed as a share of the 1-partition row of the same run.
 */
import * as fs from 'fs';
import { Tide } from '../client';
import { makeTempDir, startTide, type TideProcess } from '../test/harness/processes';
import { readBack } from './read-back';
import { cpuSecondsOf, formatRate } from './stats';

export interface PartitionsOptions {
  counts: number[];
  records: number;
  size: number;
  policy: string;
}

export interface PartitionsRow {
  partitions: number;
  createdSec: number;
  produceRecordsPerSec: number;
  producerCpuPerM: number;
  brokerCpuPerM: number;
  consumeRecordsPerSec: number;
  consumerCpuPerM: number;
  rssMiB: number;
  peakRssMiB: number;
  stopSec: number;
  restartSec: number;
}

function rssMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

/**
 * Waits until every partition of `topic` answers ListOffsets (200 lookups at a time). The
 * metadata is polled first until it names a leader for every partition: a lookup that fails
 * refetches the topic's metadata (10,000 partitions) before its retry, and thousands of those
 * while the broker is still creating the partitions cost the broker and this client more than the
 * wait they measure.
 */
async function waitServed(tide: Tide, topic: string, partitions: number): Promise<void> {
  const admin = tide.admin();
  for (let attempt = 0; ; attempt++) {
    const metadata = await admin.metadata([topic]).catch(() => undefined);
    const found = metadata?.topics.find((t) => t.name === topic);
    const led = found?.partitions.filter((p) => p.leader >= 0).length ?? 0;
    if (led === partitions) break;
    if (attempt > 1000) throw new Error(`${led} of ${partitions} partitions of ${topic} have a leader`);
    // Each answer names every partition: polled at most once a second once it takes a while.
    await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
  }
  const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  try {
    const parallel = 200;
    for (let first = 0; first < partitions; first += parallel) {
      const batch = Array.from({ length: Math.min(parallel, partitions - first) }, (_, i) => first + i);
      await Promise.all(
        batch.map(async (partition) => {
          for (let attempt = 0; ; attempt++) {
            try {
              await consumer.listOffset({ topic, partition }, 'latest');
              return;
            } catch (err) {
              if (attempt > 600) throw err;
              await new Promise((r) => setTimeout(r, 100));
            }
          }
        }),
      );
    }
  } finally {
    await consumer.close();
  }
}

async function startBroker(dataDir: string): Promise<TideProcess> {
  // A slow start is a figure to report, not a failure: 10 minutes before giving up.
  return startTide(['dev', '--data', dataDir, '--port', '0'], {
    env: { TIDE_LOG_LEVEL: 'warn' },
    readyTimeoutMs: 600_000,
  });
}

/** Progress on stderr: a sweep at 10,000 partitions runs for minutes. */
function progress(partitions: number, what: string, sinceMs: number): void {
  process.stderr.write(
    `  [${partitions} partitions] ${what} in ${((performance.now() - sinceMs) / 1000).toFixed(1)} s\n`,
  );
}

async function oneCount(options: PartitionsOptions, partitions: number): Promise<PartitionsRow> {
  const dataDir = makeTempDir('tide-bench-partitions-');
  let broker = await startBroker(dataDir);
  try {
    let tide = new Tide({ bootstrap: [broker.address] });
    const topic = 'sweep';
    const createdAt = performance.now();
    await tide.admin().createTopic(topic, { partitions, configs: { 'flush.policy': options.policy } });
    await waitServed(tide, topic, partitions);
    const createdSec = (performance.now() - createdAt) / 1000;
    progress(partitions, 'created and served', createdAt);

    const chunk = 1000;
    const values = Array.from({ length: chunk }, (_, i) => {
      const v = Buffer.alloc(options.size, 97 + (i % 26));
      v.writeUInt32BE(i, 0);
      return v;
    });
    const producer = tide.producer({ acks: 'leader' });
    await producer.connect();
    let brokerCpu = cpuSecondsOf(broker.child.pid!);
    let cpu = process.cpuUsage();
    let started = performance.now();
    const pending: Promise<unknown>[] = [];
    for (let sent = 0; sent < options.records; sent += chunk) {
      pending.push(producer.sendBatch(topic, values));
      if (pending.length % 64 === 0) await producer.ready();
    }
    await Promise.all(pending);
    const produceSec = (performance.now() - started) / 1000;
    const produceCpu = process.cpuUsage(cpu);
    const produceBrokerCpu = cpuSecondsOf(broker.child.pid!) - brokerCpu;
    await producer.close();
    progress(partitions, 'produced', started);

    const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
    consumer.assign(Array.from({ length: partitions }, (_, partition) => ({ topic, partition, offset: 0 })));
    cpu = process.cpuUsage();
    brokerCpu = cpuSecondsOf(broker.child.pid!);
    started = performance.now();
    const consumed = await readBack(consumer, options.records, 'records');
    const consumeSec = (performance.now() - started) / 1000;
    const consumeCpu = process.cpuUsage(cpu);
    await consumer.close();
    progress(partitions, 'consumed', started);
    const rss = rssMiB(broker.child.pid!, 'VmRSS');
    const peakRss = rssMiB(broker.child.pid!, 'VmHWM');
    await tide.close();

    const stoppedAt = performance.now();
    await broker.stop();
    const stopSec = (performance.now() - stoppedAt) / 1000;
    progress(partitions, 'stopped (SIGTERM)', stoppedAt);
    const restartedAt = performance.now();
    broker = await startBroker(dataDir);
    progress(partitions, 'restarted broker printed its address', restartedAt);
    tide = new Tide({ bootstrap: [broker.address] });
    await waitServed(tide, topic, partitions);
    const restartSec = (performance.now() - restartedAt) / 1000;
    progress(partitions, 'restarted and served', restartedAt);
    await tide.close();
    const perM = 1e6 / options.records;
    return {
      partitions,
      createdSec,
      produceRecordsPerSec: options.records / produceSec,
      producerCpuPerM: ((produceCpu.user + produceCpu.system) / 1e6) * perM,
      brokerCpuPerM: produceBrokerCpu * perM,
      consumeRecordsPerSec: consumed / consumeSec,
      consumerCpuPerM: ((consumeCpu.user + consumeCpu.system) / 1e6) * perM,
      rssMiB: rss,
      peakRssMiB: peakRss,
      stopSec,
      restartSec,
    };
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function partitionsSweep(options: PartitionsOptions): Promise<PartitionsRow[]> {
  const rows: PartitionsRow[] = [];
  for (const count of options.counts) rows.push(await oneCount(options, count));
  return rows;
}

export function formatPartitionRows(options: PartitionsOptions, rows: PartitionsRow[]): string {
  const base = rows.find((r) => r.partitions === 1);
  const share = (value: number, of: number | undefined) =>
    of ? ` (${Math.round((100 * value) / of)} %)` : '';
  const headers = [
    'partitions',
    'served s',
    'produce rec/s',
    'CPU-s/M p/b',
    'consume rec/s',
    'CPU-s/M c',
    'RSS MiB',
    'peak MiB',
    'stop s',
    'restart s',
  ];
  const body = rows.map((r) => [
    r.partitions.toLocaleString('en'),
    r.createdSec.toFixed(1),
    formatRate(r.produceRecordsPerSec) + share(r.produceRecordsPerSec, base?.produceRecordsPerSec),
    `${r.producerCpuPerM.toFixed(2)} / ${r.brokerCpuPerM.toFixed(2)}`,
    formatRate(r.consumeRecordsPerSec) + share(r.consumeRecordsPerSec, base?.consumeRecordsPerSec),
    r.consumerCpuPerM.toFixed(2),
    r.rssMiB.toFixed(0),
    r.peakRssMiB.toFixed(0),
    r.stopSec.toFixed(1),
    r.restartSec.toFixed(1),
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const lines = [headers, ...body].map((row) => row.map((c, i) => c.padStart(widths[i])).join('  '));
  return (
    `\nPartitions sweep: ${options.records.toLocaleString('en')} records x ${options.size} B per count, one topic, RF=1 (tide dev), ` +
    `flush.policy=${options.policy}, acks=leader, keyless sendBatch of 1,000 (sticky partitioner); one consumer of every partition\n` +
    `${lines.join('\n')}\n` +
    'served s = CreateTopic until every partition answers ListOffsets; stop s = SIGTERM until the broker exited (clean shutdown);\n' +
    'restart s = a new broker on the same data until every partition answers ListOffsets again;\n' +
    'CPU-s/M p/b = producer / broker CPU seconds per million records produced; RSS after consuming, peak = VmHWM.\n'
  );
}
