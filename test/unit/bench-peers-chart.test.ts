import { chartData, chartSpec } from '../../bench/peers/chart';
import type { ResultRow } from '../../bench/peers/types';

const base: ResultRow = {
  workload: 1,
  system: 'Tide',
  config: 'sync',
  durability: 'fsync-per-ack',
  replicas: 1,
  client: 'c',
  native: false,
  records: 10,
  recordBytes: 100,
  partitions: 1,
};

describe('chartData', () => {
  it('plots produce rates per case and p99 latencies', () => {
    const data = chartData([
      { ...base, produceRecordsPerSec: 5 },
      {
        ...base,
        workload: 4,
        partitions: 1000,
        system: 'Redis Streams',
        native: true,
        produceRecordsPerSec: 2,
      },
      { ...base, workload: 3, latencyMs: { p50: 1, p99: 3, p999: 4 } },
    ]);
    expect(data.throughput).toEqual([
      { case: 'W1 · 100 B · R1', series: 'Tide — sync', system: 'Tide', value: 5 },
      {
        case: 'W4 · 100 B · R1 · 1000 partitions',
        series: 'Redis Streams (native client) — sync',
        system: 'Redis Streams',
        value: 2,
      },
    ]);
    expect(data.latency).toEqual([
      { case: 'W3 · 100 B · R1', series: 'Tide — sync', system: 'Tide', value: 3 },
    ]);
  });
});

describe('chartSpec', () => {
  it('is a Vega-Lite v6 spec with one panel per kind of data present', () => {
    const spec = chartSpec([{ ...base, produceRecordsPerSec: 5 }], 'sub') as {
      $schema: string;
      title: { subtitle: string };
      vconcat: {
        title: string;
        data: { values: unknown[] };
        encoding: { color: { scale: { domain: string[] } } };
      }[];
    };
    expect(spec.$schema).toContain('vega-lite/v6');
    expect(spec.title.subtitle).toBe('sub');
    expect(spec.vconcat).toHaveLength(1);
    expect(spec.vconcat[0].title).toMatch(/records\/s/);
    expect(spec.vconcat[0].data.values).toHaveLength(1);
    expect(spec.vconcat[0].encoding.color.scale.domain).toContain('Tide');
  });
});
