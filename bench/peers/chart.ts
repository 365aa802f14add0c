/**
 * The chart the README embeds: produce records/s per system for each throughput case, and
 * end-to-end p99 latency, as one Vega-Lite spec (pure) rendered to SVG by Vega without a canvas.
 */
import type { ResultRow } from './types';

export interface ChartDatum {
  /** e.g. 'W1 · 100 B · R1'. */
  case: string;
  /** e.g. 'Tide — tide dev, flush.policy=sync, acks=leader'. */
  series: string;
  system: string;
  value: number;
}

function caseLabel(r: ResultRow): string {
  const parts = [`W${r.workload}`, `${r.recordBytes} B`, `R${r.replicas}`];
  if (r.partitions > 1) parts.push(`${r.partitions} partitions`);
  return parts.join(' · ');
}

function seriesLabel(r: ResultRow): string {
  return `${r.system}${r.native ? ' (native client)' : ''} — ${r.config}`;
}

/** The throughput and latency points the chart plots. */
export function chartData(rows: readonly ResultRow[]): { throughput: ChartDatum[]; latency: ChartDatum[] } {
  const point = (r: ResultRow, value: number): ChartDatum => ({
    case: caseLabel(r),
    series: seriesLabel(r),
    system: r.system,
    value,
  });
  return {
    throughput: rows
      .filter((r) => r.produceRecordsPerSec !== undefined)
      .map((r) => point(r, r.produceRecordsPerSec!)),
    latency: rows
      .filter((r) => r.latencyMs !== undefined && Number.isFinite(r.latencyMs.p99))
      .map((r) => point(r, r.latencyMs!.p99)),
  };
}

const SYSTEM_COLORS = {
  domain: ['Tide', 'NATS JetStream', 'Redis Streams'],
  range: ['#1f77b4', '#2ca02c', '#d62728'],
};

function barPanel(title: string, data: ChartDatum[], axisTitle: string): object {
  return {
    title,
    data: { values: data },
    mark: { type: 'bar', tooltip: true },
    encoding: {
      row: {
        field: 'case',
        type: 'nominal',
        title: null,
        header: { labelOrient: 'top', labelAnchor: 'start', labelFontWeight: 'bold', labelFontSize: 12 },
      },
      y: { field: 'series', type: 'nominal', title: null, sort: null, axis: { labelLimit: 0 } },
      x: { field: 'value', type: 'quantitative', title: axisTitle },
      color: {
        field: 'system',
        type: 'nominal',
        scale: SYSTEM_COLORS,
        legend: { title: null, orient: 'top' },
      },
    },
    resolve: { scale: { y: 'independent' } },
  };
}

/** The Vega-Lite spec: throughput panels above, latency panel below. */
export function chartSpec(rows: readonly ResultRow[], subtitle: string): object {
  const { throughput, latency } = chartData(rows);
  const panels = [];
  if (throughput.length)
    panels.push(barPanel('Produce records/s (higher is better)', throughput, 'records/s'));
  if (latency.length)
    panels.push(barPanel('End-to-end latency p99 at a fixed rate (lower is better)', latency, 'p99 ms'));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'Tide and its peers, same machine, same run', subtitle },
    config: { font: 'sans-serif', view: { stroke: null } },
    vconcat: panels,
  };
}

/**
 * Vega and Vega-Lite are ESM-only packages, and this project compiles to CommonJS, where
 * TypeScript rewrites `await import('vega')` into require() (which cannot load ESM). A Function
 * body is not compiled, so the import() inside it stays a real dynamic import.
 */
const importEsm = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<unknown>;

interface VegaLiteModule {
  compile(spec: object): { spec: object };
}
interface VegaModule {
  parse(spec: object): unknown;
  View: new (
    runtime: unknown,
    options: { renderer: 'none' },
  ) => { toSVG(): Promise<string>; finalize(): void };
}

/** Renders a Vega-Lite spec to SVG text (no canvas, no browser). */
export async function renderSvg(spec: object): Promise<string> {
  const vegaLite = (await importEsm('vega-lite')) as VegaLiteModule;
  const vega = (await importEsm('vega')) as VegaModule;
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
