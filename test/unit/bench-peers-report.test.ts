import {
  formatRatio,
  formatWorkloadTable,
  ratio,
  resultsDocument,
  tideBaseline,
} from '../../bench/peers/report';
import type { ResultRow } from '../../bench/peers/types';

function row(overrides: Partial<ResultRow>): ResultRow {
  return {
    workload: 1,
    system: 'Tide',
    config: 'tide dev, flush.policy=sync, acks=leader',
    durability: 'fsync-per-ack',
    replicas: 1,
    client: 'Tide client',
    native: false,
    records: 1000,
    recordBytes: 100,
    partitions: 1,
    ...overrides,
  };
}

const tideSync = row({ produceRecordsPerSec: 1_000_000, consumeRecordsPerSec: 2_000_000 });
const tideInterval = row({
  config: 'interval',
  durability: 'fsync-periodic',
  produceRecordsPerSec: 1_500_000,
});
const redisAlways = row({
  system: 'Redis Streams',
  config: 'always',
  produceRecordsPerSec: 200_000,
  consumeRecordsPerSec: 400_000,
});
const redisEverysec = row({
  system: 'Redis Streams',
  config: 'everysec',
  durability: 'fsync-periodic',
  produceRecordsPerSec: 500_000,
});
const natsR3 = row({
  workload: 2,
  system: 'NATS JetStream',
  replicas: 3,
  durability: 'fsync-periodic',
  produceRecordsPerSec: 70_000,
});

describe('tideBaseline', () => {
  const rows = [tideSync, tideInterval, redisAlways, redisEverysec, natsR3];

  it.each([
    ['fsync per ack', redisAlways, tideSync],
    ['periodic fsync', redisEverysec, tideInterval],
    ['another workload and replica count has none', natsR3, undefined],
    ['Tide itself has none', tideSync, undefined],
  ])('pairs a peer with the Tide row of the same durability: %s', (_, peer, expected) => {
    expect(tideBaseline(peer, rows)).toBe(expected);
  });

  it('does not pair rows of a different record size or partition count', () => {
    expect(tideBaseline({ ...redisAlways, recordBytes: 1024 }, rows)).toBeUndefined();
    expect(tideBaseline({ ...redisAlways, partitions: 1000 }, rows)).toBeUndefined();
  });
});

describe('ratio and formatRatio', () => {
  it.each([
    [1_000_000, 200_000, 5],
    [100, 400, 0.25],
  ])('%p / %p = %p', (tide, peer, expected) => expect(ratio(tide, peer)).toBeCloseTo(expected));

  it('has no ratio without both sides or with a zero peer', () => {
    expect(ratio(undefined, 1)).toBeUndefined();
    expect(ratio(1, undefined)).toBeUndefined();
    expect(ratio(1, 0)).toBeUndefined();
  });

  it.each([
    [undefined, '—'],
    [5, '5.00x'],
    [0.254, '0.25x'],
    [12.4, '12x'],
  ])('formats %p as %p', (value, text) => expect(formatRatio(value)).toBe(text));
});

describe('formatWorkloadTable', () => {
  it('prints the title, one line per row and the Tide/peer ratios', () => {
    const text = formatWorkloadTable(1, [tideSync, redisAlways]);
    const lines = text.split('\n');
    expect(lines[0]).toBe('Workload 1: one producer, produce then consume, 1 replica');
    const redisLine = lines.find((l) => l.startsWith('Redis Streams'))!;
    expect(redisLine).toContain('200,000');
    expect(redisLine).toMatch(/5\.00x\s+5\.00x$/);
    expect(lines.find((l) => l.startsWith('Tide'))).toMatch(/—\s+—$/);
  });

  it('marks a client-bound row and prints notes', () => {
    const text = formatWorkloadTable(1, [{ ...redisAlways, clientBound: true, note: 'produce only' }]);
    expect(text).toContain('[client-bound]');
    expect(text).toContain('note, Redis Streams always: produce only');
  });

  it('prints latency percentiles for workload 3 and the p99 ratio', () => {
    const latency = { p50: 1, p99: 4, p999: 8 };
    const text = formatWorkloadTable(3, [
      row({ workload: 3, latencyMs: { p50: 0.5, p99: 2, p999: 3 }, rate: 10_000, lost: 0 }),
      row({ workload: 3, system: 'Redis Streams', latencyMs: latency, rate: 10_000, lost: 0 }),
    ]);
    expect(text).toContain('p99.9 ms');
    expect(text.split('\n').find((l) => l.startsWith('Redis'))).toMatch(/0\.50x$/);
  });

  it('is empty for a workload without rows', () => {
    expect(formatWorkloadTable(4, [tideSync])).toBe('');
  });
});

describe('resultsDocument', () => {
  it('has the schema, the rows and one ratio entry per row', () => {
    const doc = resultsDocument({
      startedAt: 'a',
      finishedAt: 'b',
      command: 'npm run bench:peers',
      machine: { cpuModel: 'x', cpus: 2, memoryGiB: 24, kernel: 'k', node: 'v20', versions: {} },
      options: {},
      rows: [tideSync, redisAlways],
      failures: [],
    });
    expect(doc.schema).toBe('tide-bench-peers/1');
    expect(doc.rows).toHaveLength(2);
    expect(doc.ratios).toEqual([null, { produce: 5, consume: 5, latencyP99: undefined }]);
    expect(JSON.parse(JSON.stringify(doc)).ratios[1]).toEqual({ produce: 5, consume: 5 });
  });
});
