/**
 * The four workloads, identical for every Target: each runs on freshly started servers and returns
 * one ResultRow (rates, latency percentiles, server peak RSS, server and client CPU).
 */
import { cpuSecondsOf, percentile } from '../stats';
import { peakRssBytes } from './server-process';
import type { PeerBenchOptions } from './options';
import type { ResultRow, Target, WorkloadId } from './types';

/** Client CPU at or above this share of the wall time means one Node core was the limit. */
export const CLIENT_BOUND_CPU_SHARE = 0.9;

/**
 * Whether the Node client rather than the server limited a produce phase: it used ≥ 90 % of a
 * core, or (on a loaded machine, where no process gets a whole core) at least twice the CPU of
 * all the server processes together.
 */
export function isClientBound(clientCpuSec: number, serverCpuSec: number, wallSec: number): boolean {
  return clientCpuSec >= CLIENT_BOUND_CPU_SHARE * wallSec || clientCpuSec >= 2 * serverCpuSec;
}
const DISTINCT_VALUES = 1000;

/** `count` distinct values of `size` bytes: a big-endian index first, so compression gains nothing. */
export function makeValues(size: number, count = DISTINCT_VALUES): Buffer[] {
  return Array.from({ length: count }, (_, i) => {
    const value = Buffer.alloc(size, 97 + (i % 26));
    value.writeUInt32BE(i, 0);
    return value;
  });
}

function withTimeout<T>(promise: Promise<T>, seconds: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} took longer than ${seconds} s (raise --step-timeout-s)`)),
      seconds * 1000,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function serverCpuSec(target: Target): number {
  let sum = 0;
  for (const pid of target.serverPids()) {
    try {
      sum += cpuSecondsOf(pid);
    } catch {
      // a process that already exited adds nothing more
    }
  }
  return sum;
}

/** Sum of the servers' peak RSS (VmHWM), read while they still run. */
export function serverPeakRss(target: Target): number {
  return target.serverPids().reduce((sum, pid) => sum + (peakRssBytes(pid) || 0), 0);
}

interface Measured<T> {
  value: T;
  seconds: number;
  clientCpuSec: number;
  serverCpuSec: number;
}

async function measure<T>(
  target: Target,
  what: string,
  timeoutSec: number,
  fn: () => Promise<T>,
): Promise<Measured<T>> {
  const serverBefore = serverCpuSec(target);
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const value = await withTimeout(fn(), timeoutSec, what);
  const seconds = (performance.now() - started) / 1000;
  const client = process.cpuUsage(clientBefore);
  return {
    value,
    seconds,
    clientCpuSec: (client.user + client.system) / 1e6,
    serverCpuSec: serverCpuSec(target) - serverBefore,
  };
}

function baseRow(
  target: Target,
  workload: WorkloadId,
  records: number,
  recordBytes: number,
  partitions: number,
): ResultRow {
  return {
    workload,
    system: target.system,
    config: target.config,
    durability: target.durability,
    replicas: target.replicas,
    client: target.client,
    native: false,
    records,
    recordBytes,
    partitions,
  };
}

/**
 * Workloads 1, 2 and 4: produce `records` of `size` bytes across `partitions` from one producer,
 * then (when `consume`) read them all back.
 */
export async function runThroughput(
  target: Target,
  workload: WorkloadId,
  size: number,
  partitions: number,
  options: PeerBenchOptions,
  consume = true,
): Promise<ResultRow> {
  const name = `w${workload}-${size}b-${Date.now()}`;
  await target.createStream(name, partitions);
  const values = makeValues(size);
  const produced = await measure(target, `producing to ${target.system}`, options.stepTimeoutSec, () =>
    target.produce(name, values, options.records, partitions, options.inflight),
  );
  const row: ResultRow = {
    ...baseRow(target, workload, options.records, size, partitions),
    produceRecordsPerSec: options.records / produced.seconds,
    produceMBPerSec: (options.records * size) / produced.seconds / 1e6,
    serverCpuSec: produced.serverCpuSec,
    serverProduceCpuSec: produced.serverCpuSec,
    clientProduceCpuSec: produced.clientCpuSec,
    clientBound: isClientBound(produced.clientCpuSec, produced.serverCpuSec, produced.seconds),
  };
  if (consume) {
    const consumed = await measure(target, `consuming from ${target.system}`, options.stepTimeoutSec, () =>
      target.consume(name, options.records, partitions),
    );
    if (consumed.value < options.records) {
      throw new Error(`${target.system} returned ${consumed.value} of ${options.records} records`);
    }
    row.consumeRecordsPerSec = consumed.value / consumed.seconds;
    row.clientConsumeCpuSec = consumed.clientCpuSec;
    row.serverCpuSec = (row.serverCpuSec ?? 0) + consumed.serverCpuSec;
  }
  row.serverPeakRssBytes = serverPeakRss(target);
  return row;
}

/**
 * Workload 3: `rate` records/s for `latencySeconds` to one partition, each record carrying its
 * sequence number; latency is from the send call to the tail reader's receipt, in this process.
 * The first second is warm-up and not counted.
 */
export async function runLatency(
  target: Target,
  size: number,
  options: PeerBenchOptions,
): Promise<ResultRow> {
  const name = `w3-${size}b-${Date.now()}`;
  await target.createStream(name, 1);
  const total = options.rate * options.latencySeconds;
  const warmup = Math.min(options.rate, Math.floor(total / 10));
  const sentAt = new Float64Array(total);
  const samples: number[] = [];
  const ackSamples: number[] = [];
  let received = 0;
  let allReceived: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allReceived = resolve));
  const path = await target.openLatencyPath(name, (value) => {
    const seq = value.readUInt32BE(0);
    if (seq >= total || sentAt[seq] === 0) return;
    if (seq >= warmup) samples.push(performance.now() - sentAt[seq]);
    sentAt[seq] = 0;
    if (++received === total) allReceived();
  });
  const values = makeValues(size, 1).map((v) => Buffer.from(v));
  const acks: Promise<void>[] = [];
  const serverBefore = serverCpuSec(target);
  const clientBefore = process.cpuUsage();
  try {
    const start = performance.now();
    let sent = 0;
    // Bounded: every tick sends what is due by the clock; it ends when `total` are sent.
    while (sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - start) * options.rate) / 1000) + 1);
      for (; sent < due; sent++) {
        const value = Buffer.from(values[0]);
        value.writeUInt32BE(sent, 0);
        const t0 = performance.now();
        sentAt[sent] = t0;
        const counted = sent >= warmup;
        acks.push(path.send(value).then(() => void (counted && ackSamples.push(performance.now() - t0))));
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await withTimeout(Promise.all(acks), 30, `acknowledgements from ${target.system}`);
    await Promise.race([done, new Promise((r) => setTimeout(r, 10_000))]);
  } finally {
    await path.close();
  }
  const client = process.cpuUsage(clientBefore);
  return {
    ...baseRow(target, 3, total, size, 1),
    rate: options.rate,
    latencyMs: {
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
      p999: percentile(samples, 99.9),
    },
    ackLatencyMs: {
      p50: percentile(ackSamples, 50),
      p99: percentile(ackSamples, 99),
      p999: percentile(ackSamples, 99.9),
    },
    lost: total - received,
    serverCpuSec: serverCpuSec(target) - serverBefore,
    clientProduceCpuSec: (client.user + client.system) / 1e6,
    serverPeakRssBytes: serverPeakRss(target),
  };
}
