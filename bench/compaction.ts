/**
 * `npm run bench -- --compaction`: the log cleaner against a `tide dev` broker in its own process.
 *
 *   1. fill: N keyed records (K distinct keys, S-byte values) into a compacted topic whose
 *      min.cleanable.dirty.ratio is 1 (so nothing is cleaned yet);
 *   2. produce latency: records at a fixed rate into a second compacted topic, each chunk timed
 *      from send to acknowledgement, in one stream that runs for `--latency-records` worth of time
 *      with the cleaner idle, then while the cleaner compacts the filled topic (its ratio is
 *      lowered to 0.5; the broker's cleaner starts within its 5 s check interval), then as long
 *      again after the pass. Chunks are classed by send time against the broker's 'cleaning log'
 *      and 'log cleaned' times, so idle and running figures share the machine's load of the moment;
 *   3. the cleaner's own figures, from the broker's `log cleaned` line: bytes read and written,
 *      time, throughput.
 *
 *   npm run bench -- --compaction [--records 10000000] [--keys 100000] [--size 100]
 *     [--segment-bytes 67108864] [--rate 50000] [--chunk 500] [--latency-records 1000000]
 *     [--io-limit N]   the broker's cleanerIoMaxBytesPerSecond (-1 = none; default: the broker's)
 *
 * With `--direct`, the same questions without the network: one process holds two partition logs
 * (LogManager-free, flush.policy=sync for the latency log) and the cleaner's worker thread; it
 * fills, then for each I/O limit in `--io-limits` (bytes/s, 0 = none; the broker-wide setting
 * `ioBytesPerSecond`) writes N more records and times appends at the fixed rate while that pass
 * runs, against the same appends with the cleaner idle.
 *
 *   npm run bench -- --compaction --direct [--records ...] [--io-limits 0,50000000]
 */
import * as fs from 'fs';
import { Tide } from '../client';
import type { ProducerRecord } from '../client';
import { makeTempDir, startTide, type TideProcess } from '../test/harness/processes';
import { ManualClock } from '../services/common/clock';
import { silentLogger } from '../services/common/logger';
import { encodeBatch } from '../services/common/records';
import { DEFAULT_LOG_CONFIG } from '../services/broker/log/config';
import { openPartitionLog, type SegmentedLog } from '../services/broker/log/partition-log';
import { WorkerExecutor } from '../services/broker/log/cleaner/executor';
import { LogCleaner } from '../services/broker/log/cleaner/log-cleaner';
import { cpuSecondsOf, formatRate, percentile } from './stats';

interface Options {
  records: number;
  keys: number;
  size: number;
  segmentBytes: number;
  rate: number;
  chunk: number;
  latencyRecords: number;
  direct: boolean;
  ioLimits: number[];
  /** For tide dev: its cleanerIoMaxBytesPerSecond; undefined = the broker's default. */
  ioLimit: number | undefined;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    records: 10_000_000,
    keys: 100_000,
    size: 100,
    segmentBytes: 64 * 1024 * 1024,
    rate: 50_000,
    chunk: 500,
    latencyRecords: 1_000_000,
    direct: false,
    ioLimits: [0],
    ioLimit: undefined,
  };
  type NumberOption = 'records' | 'keys' | 'size' | 'segmentBytes' | 'rate' | 'chunk' | 'latencyRecords';
  const flags: Record<string, NumberOption> = {
    '--records': 'records',
    '--keys': 'keys',
    '--size': 'size',
    '--segment-bytes': 'segmentBytes',
    '--rate': 'rate',
    '--chunk': 'chunk',
    '--latency-records': 'latencyRecords',
  };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--direct') {
      o.direct = true;
      i--;
      continue;
    }
    if (argv[i] === '--io-limit') {
      o.ioLimit = Number(argv[i + 1]);
      continue;
    }
    if (argv[i] === '--io-limits') {
      o.ioLimits = argv[i + 1].split(',').map(Number);
      continue;
    }
    const key = flags[argv[i]];
    if (!key) throw new Error(`unknown flag ${argv[i]}; see the header of bench/compaction.ts`);
    o[key] = Number(argv[i + 1]);
  }
  return o;
}

function keyOf(i: number, keys: number): Buffer {
  return Buffer.from(`key-${String(i % keys).padStart(8, '0')}`);
}

/** Fills `topic` as fast as the producer goes; returns records/s. */
async function fill(tide: Tide, topic: string, o: Options): Promise<number> {
  const producer = tide.producer({ acks: 'leader', idempotence: false, maxInFlight: 5 });
  await producer.connect();
  const value = Buffer.alloc(o.size, 'v');
  const started = performance.now();
  const pending: Promise<unknown>[] = [];
  const chunk = 2000;
  for (let sent = 0; sent < o.records; sent += chunk) {
    const records: ProducerRecord[] = [];
    for (let i = sent; i < Math.min(sent + chunk, o.records); i++)
      records.push({ key: keyOf(i, o.keys), value, partition: 0 });
    pending.push(producer.sendBatch(topic, records));
    if (pending.length % 32 === 0) await producer.ready();
    if (sent % 1_000_000 === 0 && sent > 0) process.stdout.write(`  filled ${sent.toLocaleString('en')}\n`);
  }
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  await producer.close();
  return o.records / seconds;
}

/** One produce chunk: when it was sent (epoch ms, comparable with the broker's log times) and its latency. */
interface Sample {
  sentAtMs: number;
  latencyMs: number;
}

/**
 * Produces chunks at a fixed rate (not saturating the broker) and times each from send to
 * acknowledgement, until `stop()` says so.
 */
async function pacedSamples(tide: Tide, topic: string, o: Options, stop: () => boolean): Promise<Sample[]> {
  const producer = tide.producer({ acks: 'leader', idempotence: false, maxInFlight: 5, lingerMs: 0 });
  await producer.connect();
  const value = Buffer.alloc(o.size, 'w');
  const samples: Sample[] = [];
  const pending: Promise<unknown>[] = [];
  const intervalMs = (o.chunk / o.rate) * 1000;
  const started = performance.now();
  for (let n = 0; !stop(); n++) {
    const due = started + n * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const records: ProducerRecord[] = [];
    for (let i = 0; i < o.chunk; i++)
      records.push({ key: keyOf(n * o.chunk + i, o.keys), value, partition: 0 });
    const t0 = performance.now();
    const sentAtMs = performance.timeOrigin + t0;
    pending.push(
      producer
        .sendBatch(topic, records)
        .then(() => void samples.push({ sentAtMs, latencyMs: performance.now() - t0 })),
    );
  }
  await Promise.all(pending);
  await producer.close();
  return samples;
}

/** The broker's log lines about passes over `topic` ('cleaning log' at the start, 'log cleaned' at the end). */
function passLines<T>(broker: TideProcess, topic: string, msg: string): Array<T & { time: number }> {
  return broker
    .output()
    .split('\n')
    .filter((l) => l.includes(`"msg":"${msg}"`) && l.includes(`"topic":"${topic}"`))
    .map((l) => JSON.parse(l) as T & { time: number });
}

interface CleanedLine {
  bytesRead: number;
  bytesWritten: number;
  bytesCleaned: number;
  recordsRead: number;
  recordsKept: number;
  elapsedMs: number;
  throttledMs: number;
}

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the cleaner');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function summary(latencies: number[]): string {
  return `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (${latencies.length} chunks)`;
}

export async function runCompactionBench(argv: string[]): Promise<void> {
  const o = parseArgs(argv);
  if (o.direct) return runDirect(o);
  const dataDir = makeTempDir('tide-bench-compaction-');
  const broker = await startTide(['dev', '--data', dataDir, '--port', '0'], {
    env: {
      TIDE_LOG_LEVEL: 'info',
      ...(o.ioLimit === undefined ? {} : { TIDE_CLEANER_IO_MAX_BYTES_PER_SECOND: String(o.ioLimit) }),
    },
  });
  const tide = new Tide({ bootstrap: [broker.address] });
  const compact = {
    'cleanup.policy': 'compact',
    'segment.bytes': String(o.segmentBytes),
    'min.cleanable.dirty.ratio': '1',
  };
  try {
    await tide.admin().createTopic('filled', { partitions: 1, configs: compact });
    await tide.admin().createTopic('latency', { partitions: 1, configs: compact });
    process.stdout.write(
      `Compaction bench: ${o.records.toLocaleString('en')} records over ${o.keys.toLocaleString('en')} keys, ${o.size} B values, segment.bytes ${o.segmentBytes}, cleaner I/O limit ${o.ioLimit === undefined ? 'the broker default' : o.ioLimit < 0 ? 'none' : `${o.ioLimit} B/s`}\n`,
    );
    const fillRate = await fill(tide, 'filled', o);
    const before = (await tide.admin().describeTopic('filled')).status[0];
    process.stdout.write(
      `fill: ${formatRate(fillRate)} rec/s; log ${(before.sizeBytes / 1e6).toFixed(1)} MB, dirty ratio ${before.dirtyRatio.toFixed(2)}\n`,
    );

    // One paced stream runs from an idle window before the pass, through the pass, to an idle
    // window after it; each chunk is classed by when it was sent against the broker's log times
    // of the pass. Before, during and after thus share the machine's load of the moment.
    const windowMs = (o.latencyRecords / o.rate) * 1000;
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
    let stopped = false;
    const stream = pacedSamples(tide, 'latency', o, () => stopped);
    await sleep(windowMs);
    const brokerCpu = cpuSecondsOf(broker.child.pid!);
    await tide.admin().alterConfigs('filled', { set: { 'min.cleanable.dirty.ratio': '0.5' } });
    await waitUntil(() => passLines(broker, 'filled', 'log cleaned').length > 0, 30 * 60_000);
    const cpu = cpuSecondsOf(broker.child.pid!) - brokerCpu;
    await sleep(windowMs);
    stopped = true;
    const samples = await stream;
    const pass = passLines<CleanedLine>(broker, 'filled', 'log cleaned')[0];
    const startMs = passLines(broker, 'filled', 'cleaning log')[0].time;
    const latencies = (from: number, to: number): number[] =>
      samples.filter((s) => s.sentAtMs >= from && s.sentAtMs < to).map((s) => s.latencyMs);
    const idleBefore = latencies(0, startMs);
    const during = latencies(startMs, pass.time);
    const idleAfter = latencies(pass.time, Infinity);
    const idle = [...idleBefore, ...idleAfter];
    const line = (label: string, l: number[]): void =>
      void process.stdout.write(`produce at ${formatRate(o.rate)} rec/s, ${label} ${summary(l)}\n`);
    line('cleaner idle before: ', idleBefore);
    line('cleaner running:     ', during);
    line('cleaner idle after:  ', idleAfter);
    process.stdout.write(
      `p99 running / idle (before and after): ${(percentile(during, 99) / percentile(idle, 99)).toFixed(2)}; ` +
        `p50 ${(percentile(during, 50) / percentile(idle, 50)).toFixed(2)}\n`,
    );
    const after = (await tide.admin().describeTopic('filled')).status[0];
    const seconds = pass.elapsedMs / 1000;
    process.stdout.write(
      `cleaner: 1 pass, ${(pass.bytesCleaned / 1e6).toFixed(1)} MB of segments cleaned in ${seconds.toFixed(1)} s = ` +
        `${(pass.bytesCleaned / 1e6 / seconds).toFixed(1)} MB/s of log (` +
        `${((pass.bytesRead + pass.bytesWritten) / 1e6 / seconds).toFixed(1)} MB/s read+written; ` +
        `${formatRate(pass.recordsRead / seconds)} records/s); ${pass.recordsRead.toLocaleString('en')} records -> ` +
        `${pass.recordsKept.toLocaleString('en')} kept; log ${(before.sizeBytes / 1e6).toFixed(1)} -> ${(after.sizeBytes / 1e6).toFixed(1)} MB; ` +
        `broker CPU while waiting for the pass ${cpu.toFixed(1)} s\n`,
    );
    process.stdout.write(
      '\nLatency: one sendBatch chunk from call to acknowledgement (acks=leader, fsync per group commit), at a fixed rate below saturation.\n',
    );
  } finally {
    await tide.close();
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Appends `records` keyed records (1000 per batch) to `log` as fast as it takes them. */
async function fillDirect(log: SegmentedLog, o: Options, from: number): Promise<void> {
  const value = Buffer.alloc(o.size, 'v');
  const perBatch = 1000;
  const inFlight: Promise<unknown>[] = [];
  for (let sent = 0; sent < o.records; sent += perBatch) {
    const records = [];
    for (let i = sent; i < Math.min(sent + perBatch, o.records); i++)
      records.push({ key: keyOf(from + i, o.keys), value, timestampMs: 0 });
    inFlight.push(log.append(encodeBatch(records), { leaderEpoch: 0 }));
    if (inFlight.length >= 16) await inFlight.shift();
  }
  await Promise.all(inFlight);
}

/** Appends chunk-record batches at the fixed rate until stop(); returns each append's latency. */
async function pacedAppends(log: SegmentedLog, o: Options, stop: () => boolean): Promise<number[]> {
  const value = Buffer.alloc(o.size, 'w');
  const latencies: number[] = [];
  const pending: Promise<unknown>[] = [];
  const intervalMs = (o.chunk / o.rate) * 1000;
  const started = performance.now();
  for (let n = 0; n * o.chunk < o.latencyRecords && !stop(); n++) {
    const wait = started + n * intervalMs - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const records = Array.from({ length: o.chunk }, (_, i) => ({
      key: keyOf(n * o.chunk + i, o.keys),
      value,
    }));
    const t0 = performance.now();
    pending.push(
      log
        .append(encodeBatch(records), { leaderEpoch: 0 })
        .then(() => void latencies.push(performance.now() - t0)),
    );
  }
  await Promise.all(pending);
  return latencies;
}

async function runDirect(o: Options): Promise<void> {
  const dataDir = makeTempDir('tide-bench-compaction-direct-');
  const clock = new ManualClock();
  const base = {
    ...DEFAULT_LOG_CONFIG,
    cleanupPolicy: 'compact',
    segmentBytes: o.segmentBytes,
    segmentMs: -1,
    minCleanableDirtyRatio: 1,
  };
  const open = (topic: string, flushPolicy: 'os' | 'sync'): Promise<SegmentedLog> =>
    openPartitionLog({
      dataDir,
      topic,
      partition: 0,
      clock,
      logger: silentLogger(),
      config: { ...base, flushPolicy },
    });
  const filled = await open('filled', 'os');
  const latencyLog = await open('latency', 'sync');
  try {
    process.stdout.write(
      `Compaction bench (direct, one process): ${o.records.toLocaleString('en')} records over ${o.keys.toLocaleString('en')} keys per round, ${o.size} B values, segment.bytes ${o.segmentBytes}; appends of ${o.chunk} records at ${formatRate(o.rate)} rec/s, flush.policy=sync\n`,
    );
    let t = performance.now();
    await fillDirect(filled, o, 0);
    process.stdout.write(
      `fill: ${formatRate(o.records / ((performance.now() - t) / 1000))} rec/s, log ${(filled.sizeBytes / 1e6).toFixed(1)} MB\n`,
    );
    const idle = await pacedAppends(latencyLog, o, () => false);
    process.stdout.write(`appends, cleaner idle: ${summary(idle)}\n`);
    for (const [round, limit] of o.ioLimits.entries()) {
      if (round > 0) await fillDirect(filled, o, round * o.records);
      const cleaner = new LogCleaner({
        clock,
        logger: silentLogger(),
        logs: () => [filled],
        executor: new WorkerExecutor(),
        config: { ioBytesPerSecond: limit },
      });
      const sizeBefore = filled.sizeBytes;
      let done = false;
      t = performance.now();
      const pass = cleaner.clean(filled, { force: true }).finally(() => (done = true));
      const busy = await pacedAppends(latencyLog, o, () => done);
      const result = (await pass)!;
      const seconds = (performance.now() - t) / 1000;
      await cleaner.close();
      const s = result.stats;
      process.stdout.write(
        `io limit ${limit > 0 ? `${(limit / 1e6).toFixed(0)} MB/s` : 'none'}: pass ${(s.bytesCleaned / 1e6).toFixed(1)} MB of segments in ${seconds.toFixed(1)} s = ` +
          `${(s.bytesCleaned / 1e6 / seconds).toFixed(1)} MB/s of log (${((s.bytesRead + s.bytesWritten) / 1e6 / seconds).toFixed(1)} MB/s read+written, ` +
          `${formatRate(s.recordsRead / seconds)} rec/s), log ${(sizeBefore / 1e6).toFixed(1)} -> ${(filled.sizeBytes / 1e6).toFixed(1)} MB; ` +
          `appends meanwhile: ${summary(busy)}\n`,
      );
    }
  } finally {
    await filled.close();
    await latencyLog.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
