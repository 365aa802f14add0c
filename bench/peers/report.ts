/**
 * Pure formatting of the peer benchmark's results: which Tide row each peer row is compared with,
 * the ratios, the text tables printed per workload, and the results JSON document.
 */
import { formatRate } from '../stats';
import { WORKLOAD_TITLES, type ResultRow, type WorkloadId } from './types';

/**
 * The Tide row a row is compared with: same workload, record size, partitions, replicas and
 * durability class (fsync per ack vs periodic), measured through the Node client. Undefined for
 * Tide's own rows and when Tide was not run.
 */
export function tideBaseline(row: ResultRow, rows: readonly ResultRow[]): ResultRow | undefined {
  if (row.system === 'Tide') return undefined;
  return rows.find(
    (t) =>
      t.system === 'Tide' &&
      !t.native &&
      t.workload === row.workload &&
      t.recordBytes === row.recordBytes &&
      t.partitions === row.partitions &&
      t.replicas === row.replicas &&
      t.durability === row.durability,
  );
}

/** Tide ÷ peer of one measure; undefined when either side lacks it. */
export function ratio(tide: number | undefined, peer: number | undefined): number | undefined {
  if (tide === undefined || peer === undefined || !(peer > 0) || !Number.isFinite(tide)) return undefined;
  return tide / peer;
}

export function formatRatio(value: number | undefined): string {
  if (value === undefined) return '—';
  return value >= 10 ? `${value.toFixed(0)}x` : `${value.toFixed(2)}x`;
}

function mib(bytes: number | undefined): string {
  return bytes === undefined || !Number.isFinite(bytes) ? '—' : (bytes / 1024 / 1024).toFixed(0);
}

function num(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(digits);
}

function rate(value: number | undefined): string {
  return value === undefined ? '—' : formatRate(value);
}

function systemLabel(row: ResultRow): string {
  return `${row.system}${row.native ? ' (native)' : ''}`;
}

/** Column headers and cells of one workload's table. */
export function workloadTable(
  workload: WorkloadId,
  rows: readonly ResultRow[],
): { headers: string[]; cells: string[][] } {
  const mine = rows.filter((r) => r.workload === workload);
  if (workload === 3) {
    return {
      headers: [
        'system',
        'config',
        'size B',
        'rate/s',
        'p50 ms',
        'p99 ms',
        'p99.9 ms',
        'ack p50 ms',
        'ack p99 ms',
        'lost',
        'server RSS MiB',
        'client CPU s',
        'p99 Tide/peer',
      ],
      cells: mine.map((r) => {
        const tide = tideBaseline(r, rows);
        return [
          systemLabel(r),
          r.config,
          String(r.recordBytes),
          rate(r.rate),
          num(r.latencyMs?.p50, 2),
          num(r.latencyMs?.p99, 2),
          num(r.latencyMs?.p999, 2),
          num(r.ackLatencyMs?.p50, 2),
          num(r.ackLatencyMs?.p99, 2),
          String(r.lost ?? '—'),
          mib(r.serverPeakRssBytes),
          num(r.clientProduceCpuSec, 1),
          formatRatio(ratio(tide?.latencyMs?.p99, r.latencyMs?.p99)),
        ];
      }),
    };
  }
  return {
    headers: [
      'system', 'config', 'client', 'size B', 'partitions', 'produce rec/s', 'MB/s', 'consume rec/s',
      'server RSS MiB', 'server CPU s', 'client CPU s', 'produce Tide/peer', 'consume Tide/peer',
    ], // prettier-ignore
    cells: mine.map((r) => {
      const tide = tideBaseline(r, rows);
      return [
        systemLabel(r),
        r.config,
        r.client + (r.clientBound ? ' [client-bound]' : ''),
        String(r.recordBytes),
        String(r.partitions),
        rate(r.produceRecordsPerSec),
        num(r.produceMBPerSec, 1),
        rate(r.consumeRecordsPerSec),
        mib(r.serverPeakRssBytes),
        num(r.serverCpuSec, 1),
        num(
          r.clientProduceCpuSec === undefined
            ? undefined
            : r.clientProduceCpuSec + (r.clientConsumeCpuSec ?? 0),
          1,
        ),
        formatRatio(ratio(tide?.produceRecordsPerSec, r.produceRecordsPerSec)),
        formatRatio(ratio(tide?.consumeRecordsPerSec, r.consumeRecordsPerSec)),
      ];
    }),
  };
}

/** One workload's table as aligned text, with its title and failures; '' when it has no rows. */
export function formatWorkloadTable(workload: WorkloadId, rows: readonly ResultRow[]): string {
  const { headers, cells } = workloadTable(workload, rows);
  if (cells.length === 0) return '';
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    c.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  const notes = rows
    .filter((r) => r.workload === workload && r.note)
    .map((r) => `  note, ${systemLabel(r)} ${r.config}: ${r.note}`);
  const legend =
    workload === 3
      ? 'p99 Tide/peer below 1 = Tide has the lower latency.'
      : 'Tide/peer above 1 = Tide is faster; each peer is compared with the Tide row of the same durability (fsync per ack or periodic) and replicas.';
  return [WORKLOAD_TITLES[workload], '', line(headers), ...cells.map(line), '', legend, ...notes, ''].join(
    '\n',
  );
}

export interface MachineInfo {
  cpuModel: string;
  cpus: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  /** Server and tool versions, e.g. { 'nats-server': 'v2.9.10' }. */
  versions: Record<string, string>;
}

export interface ResultsDocument {
  schema: 'tide-bench-peers/1';
  startedAt: string;
  finishedAt: string;
  command: string;
  machine: MachineInfo;
  options: object;
  rows: ResultRow[];
  /** Each peer row's ratios against its Tide baseline, in row order (null where there is none). */
  ratios: ({ produce?: number; consume?: number; latencyP99?: number } | null)[];
  failures: string[];
}

/** The JSON saved under bench/results/. */
export function resultsDocument(input: Omit<ResultsDocument, 'schema' | 'ratios'>): ResultsDocument {
  return {
    schema: 'tide-bench-peers/1',
    ...input,
    ratios: input.rows.map((r) => {
      const tide = tideBaseline(r, input.rows);
      if (!tide) return null;
      return {
        produce: ratio(tide.produceRecordsPerSec, r.produceRecordsPerSec),
        consume: ratio(tide.consumeRecordsPerSec, r.consumeRecordsPerSec),
        latencyP99: ratio(tide.latencyMs?.p99, r.latencyMs?.p99),
      };
    }),
  };
}
