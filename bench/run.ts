/**
 * `npm run bench`: the produce/consume benchmark of one partition. A `tide dev` broker runs as its
 * own process; this process is the one producer (then the consumer). For each flush policy it
 * produces N records of S bytes with acks=leader (or --acks all, idempotent), then reads them all back twice (as record objects,
 * then as checked batches), and prints records/s, MB/s, produce latency percentiles and the CPU each
 * process used.
 *
 *   npm run bench -- [--records 1000000] [--size 100] [--policies sync,interval,os] [--chunk 1000]
 *                    [--batch-bytes N] [--max-in-flight N] [--fetch-bytes N]   (client defaults otherwise)
 *                    [--warmup 1000000]   records produced and read back untimed first (0 = none)
 *                    [--acks leader|all]  all = an idempotent producer (idempotence needs acks=all)
 *                    [--only produce,latency,partitions]   which parts to run (default all three)
 *                    [--latency-rates 1000,10000,50000] [--latency-seconds 5]
 *                    [--partitions 1,100,1000,10000] [--partition-records 1000000]
 *                    [--tls [--tls-rounds 3] [--auth]]   plain text against TLS (and TLS + auth + ACLs),
 *                                        interleaved, with the ratios (bench/tls.ts)
 *   npm run bench -- --compaction [...]   the log cleaner instead: see bench/compaction.ts
 *   npm run bench -- --transactions [...]   transactional against idempotent produce: bench/transactions.ts
 *
 * latency: send-to-ack of single records at fixed rates with `lingerMs: 0`, per flush policy
 * (bench/latency.ts). partitions: the partitions sweep on a fresh broker per count
 * (bench/partitions.ts).
 */
import * as fs from 'fs';
import { Tide, type Producer, type TideOptions } from '../client';
import { makeTempDir, startTide, type TideProcess } from '../test/harness/processes';
import { cpuSecondsOf, percentile, formatRate } from './stats';
import { runCompactionBench } from './compaction';
import { readBack, type ReadMode } from './read-back';
import { DEFAULT_LATENCY_RATES, formatLatencyRows, latencyRows } from './latency';
import { formatPartitionRows, partitionsSweep, type PartitionsOptions } from './partitions';
import { runTlsComparison } from './tls';
import { runTransactionsBench } from './transactions';

export interface BenchOptions {
  records: number;
  size: number;
  policies: string[];
  chunk: number;
  compression: 'none' | 'gzip' | 'snappy';
  batchBytes?: number;
  maxInFlight: number;
  fetchBytes?: number;
  warmup: number;
  acks: 'leader' | 'all';
  only: string[];
  latencyRates: number[];
  latencySeconds: number;
  partitions: number[];
  partitionRecords: number;
  /** --tls: the produce/consume run on plain text and on TLS, interleaved, with the ratio. */
  tls: boolean;
  tlsRounds: number;
  /** --auth (with --tls): a third mode with authentication and ACL checks on. */
  auth: boolean;
  /** How clients reach the broker (TLS settings when it listens on TLS). */
  client?: Omit<TideOptions, 'bootstrap'>;
}

function parseArgs(argv: string[]): BenchOptions {
  const options: BenchOptions = {
    records: 1_000_000,
    size: 100,
    policies: ['sync', 'interval', 'os'],
    chunk: 1000,
    compression: 'none',
    maxInFlight: 5,
    warmup: 1_000_000,
    acks: 'leader',
    only: ['produce', 'latency', 'partitions'],
    latencyRates: DEFAULT_LATENCY_RATES,
    latencySeconds: 5,
    partitions: [1, 100, 1_000, 10_000],
    partitionRecords: 1_000_000,
    tls: false,
    tlsRounds: 3,
    auth: false,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--tls') {
      options.tls = true;
      i -= 1; // a switch: no value
    } else if (flag === '--auth') {
      options.auth = true;
      options.tls = true;
      i--;
    } else if (flag === '--tls-rounds') options.tlsRounds = Number(value);
    else if (flag === '--records') options.records = Number(value);
    else if (flag === '--size') options.size = Number(value);
    else if (flag === '--policies') options.policies = value.split(',');
    else if (flag === '--chunk') options.chunk = Number(value);
    else if (flag === '--compression') options.compression = value as BenchOptions['compression'];
    else if (flag === '--batch-bytes') options.batchBytes = Number(value);
    else if (flag === '--max-in-flight') options.maxInFlight = Number(value);
    else if (flag === '--fetch-bytes') options.fetchBytes = Number(value);
    else if (flag === '--warmup') options.warmup = Number(value);
    else if (flag === '--only') options.only = value.split(',');
    else if (flag === '--latency-rates') options.latencyRates = value.split(',').map(Number);
    else if (flag === '--latency-seconds') options.latencySeconds = Number(value);
    else if (flag === '--partitions') options.partitions = value.split(',').map(Number);
    else if (flag === '--partition-records') options.partitionRecords = Number(value);
    else if (flag === '--acks') {
      if (value !== 'leader' && value !== 'all')
        throw new Error(`--acks must be leader or all, got ${value}`);
      options.acks = value;
    } else throw new Error(`unknown flag ${flag}; see the header of bench/run.ts`);
  }
  return options;
}

export interface ProduceConsumeResult {
  policy: string;
  produceRecordsPerSec: number;
  produceMBPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Per-record produce latency at a steady 10,000 records/s (no queueing). */
  steadyP50Ms: number;
  steadyP99Ms: number;
  producerCpuSec: number;
  brokerCpuSec: number;
  /** Reading every record back as an object, values read. */
  consume: ReadBackResult;
  /** Reading checked batches back, records counted from them, not built. */
  consumeBatches: ReadBackResult;
}

interface ReadBackResult {
  recordsPerSec: number;
  consumerCpuSec: number;
  brokerCpuSec: number;
}

/** Per-record latency at a steady 10,000 records/s: 10 records every millisecond for 3 s. */
async function steadyLatencies(producer: Producer, topic: string, value: Buffer): Promise<number[]> {
  const samples: number[] = [];
  const pending: Promise<unknown>[] = [];
  const start = performance.now();
  for (let tick = 0; tick < 3000; tick++) {
    const due = start + tick;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      pending.push(
        producer.send(topic, { value, partition: 0 }).then(() => void samples.push(performance.now() - t0)),
      );
    }
  }
  await Promise.all(pending);
  return samples;
}

async function runPolicy(
  broker: TideProcess,
  options: BenchOptions,
  policy: string,
): Promise<ProduceConsumeResult> {
  const tide = new Tide({ ...options.client, bootstrap: [broker.address] });
  const topic = `bench-${policy}-${Date.now()}`;
  await tide.admin().createTopic(topic, { partitions: 1, configs: { 'flush.policy': policy } });
  const producer = tide.producer({
    acks: options.acks,
    idempotence: options.acks === 'all',
    maxInFlight: options.maxInFlight,
    compression: options.compression,
    ...(options.batchBytes ? { batchBytes: options.batchBytes } : {}),
  });
  await producer.connect();

  // Values differ per record so compression is not flattered; built before timing starts.
  const values: Buffer[] = [];
  for (let i = 0; i < options.chunk; i++) {
    const value = Buffer.alloc(options.size, 97 + (i % 26));
    value.writeUInt32BE(i, 0);
    values.push(value);
  }

  const latencies: number[] = [];
  const brokerCpuBefore = cpuSecondsOf(broker.child.pid!);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let sent = 0; sent < options.records; sent += options.chunk) {
    const count = Math.min(options.chunk, options.records - sent);
    const t0 = performance.now();
    pending.push(
      producer
        .sendBatch(topic, count === values.length ? values : values.slice(0, count), { partition: 0 })
        .then(() => void latencies.push(performance.now() - t0)),
    );
    // sendBatch waits for buffer space itself; yielding here lets acknowledgements run.
    if (pending.length % 64 === 0) await producer.ready();
  }
  await Promise.all(pending);
  const produceSec = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const brokerCpu = cpuSecondsOf(broker.child.pid!) - brokerCpuBefore;
  const steady = await steadyLatencies(producer, topic, values[0]);
  await producer.close();

  const readRecords = await timedReadBack(tide, broker, topic, options, 'records');
  const readBatches = await timedReadBack(tide, broker, topic, options, 'batches');
  await tide.admin().deleteTopic(topic);
  await tide.close();

  return {
    policy,
    produceRecordsPerSec: options.records / produceSec,
    produceMBPerSec: (options.records * options.size) / produceSec / 1e6,
    latencyP50Ms: percentile(latencies, 50),
    latencyP99Ms: percentile(latencies, 99),
    steadyP50Ms: percentile(steady, 50),
    steadyP99Ms: percentile(steady, 99),
    producerCpuSec: (cpu.user + cpu.system) / 1e6,
    brokerCpuSec: brokerCpu,
    consume: readRecords,
    consumeBatches: readBatches,
  };
}

/** Reads the whole topic back from offset 0 with a fresh consumer, timed, with both processes' CPU. */
async function timedReadBack(
  tide: Tide,
  broker: TideProcess,
  topic: string,
  options: BenchOptions,
  mode: ReadMode,
): Promise<ReadBackResult> {
  const consumer = tide.consumer({
    autoOffsetReset: 'earliest',
    ...(options.fetchBytes ? { maxBytes: options.fetchBytes } : {}),
  });
  consumer.assign([{ topic, partition: 0, offset: 0 }]);
  const brokerCpuBefore = cpuSecondsOf(broker.child.pid!);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const consumed = await readBack(consumer, options.records, mode);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const brokerCpuSec = cpuSecondsOf(broker.child.pid!) - brokerCpuBefore;
  await consumer.close();
  return { recordsPerSec: consumed / seconds, consumerCpuSec: (cpu.user + cpu.system) / 1e6, brokerCpuSec };
}

/**
 * Produces and reads back `options.warmup` records, untimed, so that the first measured policy does
 * not pay for both processes' JIT compilation (measured: the first million records of a fresh pair
 * of processes ran ~35% slower than the next, whatever the policy).
 */
async function warmUp(broker: TideProcess, options: BenchOptions): Promise<void> {
  if (options.warmup <= 0) return;
  const tide = new Tide({ ...options.client, bootstrap: [broker.address] });
  const topic = `bench-warmup-${Date.now()}`;
  await tide.admin().createTopic(topic, { partitions: 1, configs: { 'flush.policy': 'os' } });
  const producer = tide.producer({ acks: 'leader', idempotence: false, maxInFlight: options.maxInFlight });
  const values = Array.from({ length: options.chunk }, () => Buffer.alloc(options.size, 97));
  const pending: Promise<unknown>[] = [];
  for (let sent = 0; sent < options.warmup; sent += options.chunk) {
    pending.push(producer.sendBatch(topic, values, { partition: 0 }));
    if (pending.length % 64 === 0) await producer.ready();
  }
  await Promise.all(pending);
  await producer.close();
  for (const mode of ['records', 'batches'] as const) {
    const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
    consumer.assign([{ topic, partition: 0, offset: 0 }]);
    await readBack(consumer, options.warmup, mode);
    await consumer.close();
  }
  await tide.admin().deleteTopic(topic);
  await tide.close();
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.tls) return runTlsComparison(options, { warmUp, runPolicy });
  const dataDir = makeTempDir('tide-bench-');
  const broker = await startTide(['dev', '--data', dataDir, '--port', '0'], {
    env: { TIDE_LOG_LEVEL: 'warn' },
  });
  const results: ProduceConsumeResult[] = [];
  const latency: string[] = [];
  try {
    if (options.only.includes('produce')) {
      await warmUp(broker, options);
      for (const policy of options.policies) results.push(await runPolicy(broker, options, policy));
    }
    if (options.only.includes('latency'))
      for (const policy of options.policies) latency.push(await latencyOf(broker, options, policy));
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (results.length > 0) printResults(options, results);
  for (const table of latency) process.stdout.write(table);
  if (options.only.includes('partitions')) {
    const sweep: PartitionsOptions = {
      counts: options.partitions,
      records: options.partitionRecords,
      size: options.size,
      policy: options.policies[0],
    };
    process.stdout.write(formatPartitionRows(sweep, await partitionsSweep(sweep)));
  }
}

async function latencyOf(broker: TideProcess, options: BenchOptions, policy: string): Promise<string> {
  const tide = new Tide({ ...options.client, bootstrap: [broker.address] });
  const topic = `bench-latency-${policy}-${Date.now()}`;
  await tide.admin().createTopic(topic, { partitions: 1, configs: { 'flush.policy': policy } });
  const producer = tide.producer({ acks: options.acks, idempotence: options.acks === 'all', lingerMs: 0 });
  await producer.connect();
  const rows = await latencyRows(
    producer,
    topic,
    0,
    Buffer.alloc(options.size, 97),
    options.latencyRates,
    options.latencySeconds,
    () => [cpuSecondsOf(broker.child.pid!)],
  );
  await producer.close();
  await tide.admin().deleteTopic(topic);
  await tide.close();
  return formatLatencyRows(
    `latency, send to ack of one ${options.size} B record, lingerMs 0, acks=${options.acks}, 1 replica, flush.policy=${policy}:`,
    rows,
  );
}

function printResults(options: BenchOptions, results: ProduceConsumeResult[]): void {
  process.stdout.write(
    `\nTide produce/consume: ${options.records.toLocaleString('en')} records x ${options.size} B, 1 partition, acks=${options.acks}${options.acks === 'all' ? ' (idempotent)' : ''}, ` +
      `compression ${options.compression}, sendBatch chunks of ${options.chunk}; broker = tide dev in its own process\n\n`,
  );
  const rows = results.map((r) => [
    r.policy,
    formatRate(r.produceRecordsPerSec),
    r.produceMBPerSec.toFixed(1),
    r.latencyP50Ms.toFixed(1),
    r.latencyP99Ms.toFixed(1),
    r.steadyP50Ms.toFixed(2),
    r.steadyP99Ms.toFixed(2),
    r.producerCpuSec.toFixed(1),
    r.brokerCpuSec.toFixed(1),
    formatRate(r.consume.recordsPerSec),
    `${r.consume.consumerCpuSec.toFixed(1)} / ${r.consume.brokerCpuSec.toFixed(1)}`,
    formatRate(r.consumeBatches.recordsPerSec),
    `${r.consumeBatches.consumerCpuSec.toFixed(1)} / ${r.consumeBatches.brokerCpuSec.toFixed(1)}`,
  ]);
  const headers = [
    'flush.policy',
    'produce rec/s',
    'MB/s',
    'p50 ms',
    'p99 ms',
    'p50 ms @10k/s',
    'p99 ms @10k/s',
    'producer CPU s',
    'broker CPU s',
    'consume rec/s',
    'CPU s c/b',
    'batch consume rec/s',
    'CPU s c/b',
  ];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [headers, ...rows])
    process.stdout.write(row.map((c, i) => c.padStart(widths[i])).join('  ') + '\n');
  process.stdout.write(
    '\nLatency: p50/p99 ms = from a sendBatch call of one chunk to its acknowledgement at full load (mostly\n' +
      'queueing behind the 32 MiB producer buffer); @10k/s = from send() of one record to its acknowledgement,\n' +
      'one record every 0.1 ms (10 per ms) for 3 s, with the default 5 ms linger.\n' +
      'consume = every record built as an object and its value read; batch consume = checked batches (CRC and\n' +
      'record layout), records counted, not built. CPU s c/b = consumer / broker CPU seconds while reading.\n',
  );
}

// `npm run bench -- --compaction [...]` runs the compaction benchmark instead (bench/compaction.ts).
// `npm run bench -- --transactions [...]`: transactional against idempotent produce (bench/transactions.ts).
const run =
  process.argv[2] === '--compaction'
    ? () => runCompactionBench(process.argv.slice(3))
    : process.argv[2] === '--transactions'
      ? () => runTransactionsBench(process.argv.slice(3))
      : main;
run().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
