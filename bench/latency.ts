/**
 * Latency rows for `npm run bench` and `npm run bench:cluster`: send-to-acknowledgement latency of
 * single records at fixed rates (1k, 10k, 50k records/s by default), each for a few seconds after
 * a warm-up second (and, before the first rate, an untimed run of a few seconds at the highest
 * one), with a producer that sends at once (`lingerMs: 0`). Records are scheduled on a
 * 1 ms tick (rate/1000 records per tick), the way W3 of `npm run bench:peers` does, so the figures
 * include no queueing behind a full buffer: they are what one record waits at that rate.
 * With a `brokerCpu` probe, each row also gives the CPU the client and each broker used per 1,000
 * records while it was timed: on a shared 2-core machine that figure moves less with other load
 * than the latencies do.
 */
import type { Producer } from '../client';
import { percentile } from './stats';

export interface LatencyRow {
  rate: number;
  sent: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** Records per second actually offered (below `rate` when the client could not keep up). */
  achievedRate: number;
  /** CPU ms per 1,000 records of the client, and of each broker when a probe was given. */
  clientCpuMsPer1k: number;
  brokerCpuMsPer1k: number[];
}

/** CPU seconds used so far by each broker process (e.g. cpuSecondsOf for each pid). */
export type BrokerCpuProbe = () => number[];

export const DEFAULT_LATENCY_RATES = [1_000, 10_000, 50_000];

/** Untimed run before the first row. */
const WARMUP_SECONDS = 3;

/** Measures one rate: `seconds` timed after one untimed warm-up second. */
export async function latencyAtRate(
  producer: Producer,
  topic: string,
  partition: number,
  value: Buffer,
  rate: number,
  seconds: number,
  brokerCpu: BrokerCpuProbe = () => [],
): Promise<LatencyRow> {
  const samples: number[] = [];
  let clientCpuBefore = process.cpuUsage();
  let brokerCpuBefore = brokerCpu();
  const pending: Promise<unknown>[] = [];
  const perTick = rate / 1000;
  const warmupTicks = 1000;
  const ticks = warmupTicks + Math.round(seconds * 1000);
  let owed = 0;
  let sent = 0;
  const start = performance.now();
  let timedStart = start;
  for (let tick = 0; tick < ticks; tick++) {
    const due = start + tick;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (tick === warmupTicks) {
      timedStart = performance.now();
      clientCpuBefore = process.cpuUsage();
      brokerCpuBefore = brokerCpu();
    }
    const timed = tick >= warmupTicks;
    owed += perTick;
    for (; owed >= 1; owed--) {
      const t0 = performance.now();
      const p = producer.send(topic, { value, partition });
      if (timed) {
        sent++;
        pending.push(p.then(() => void samples.push(performance.now() - t0)));
      } else pending.push(p);
    }
  }
  const offeredSec = (performance.now() - timedStart) / 1000;
  await Promise.all(pending);
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const perThousand = 1_000_000 / Math.max(1, sent);
  return {
    rate,
    sent,
    p50Ms: percentile(samples, 50),
    p99Ms: percentile(samples, 99),
    p999Ms: percentile(samples, 99.9),
    maxMs: percentile(samples, 100),
    achievedRate: sent / offeredSec,
    clientCpuMsPer1k: ((clientCpu.user + clientCpu.system) / 1e6) * perThousand,
    brokerCpuMsPer1k: brokerCpu().map((c, i) => (c - (brokerCpuBefore[i] ?? 0)) * perThousand),
  };
}

export async function latencyRows(
  producer: Producer,
  topic: string,
  partition: number,
  value: Buffer,
  rates: number[] = DEFAULT_LATENCY_RATES,
  seconds = 5,
  brokerCpu?: BrokerCpuProbe,
): Promise<LatencyRow[]> {
  // Untimed, at the highest rate: whichever rate ran first measured ~1.5x slower than the same
  // rate run second (JIT, fresh buffers and log), one warm-up second per rate was not enough.
  if (rates.length > 0)
    await latencyAtRate(producer, topic, partition, value, Math.max(...rates), WARMUP_SECONDS);
  const rows: LatencyRow[] = [];
  for (const rate of rates)
    rows.push(await latencyAtRate(producer, topic, partition, value, rate, seconds, brokerCpu));
  return rows;
}

export function formatLatencyRows(title: string, rows: LatencyRow[]): string {
  const headers = [
    'rate rec/s',
    'offered rec/s',
    'p50 ms',
    'p99 ms',
    'p999 ms',
    'max ms',
    'CPU ms/1k rec: client | brokers',
  ];
  const body = rows.map((r) => [
    r.rate.toLocaleString('en'),
    Math.round(r.achievedRate).toLocaleString('en'),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    r.p999Ms.toFixed(2),
    r.maxMs.toFixed(2),
    [r.clientCpuMsPer1k, ...r.brokerCpuMsPer1k].map((c, i) => (i === 1 ? '| ' : '') + c.toFixed(0)).join(' '),
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const lines = [headers, ...body].map((row) => row.map((c, i) => c.padStart(widths[i])).join('  '));
  return `\n${title}\n${lines.join('\n')}\n`;
}
