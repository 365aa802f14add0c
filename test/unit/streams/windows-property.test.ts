/**
 * Random keyed input with out-of-order timestamps through windowed counts, compared with a plain
 * reference model. Disorder stays within the grace period, so no record is late and the final
 * count of every window must equal a brute-force count over all records. Seeded; the seed is in
 * the test name. Every case runs on the in-memory stores and on the LMDB ones (the driver's stateDir).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  Serdes,
  SessionWindows,
  SlidingWindows,
  StreamsBuilder,
  TimeWindows,
  TopologyTestDriver,
  type KGroupedStream,
  type KTable,
  type Windowed,
} from '../../../streams';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Rec {
  key: string;
  ts: number;
}

const DISORDER_MS = 40;

function randomInput(seed: number, n: number): Rec[] {
  const rnd = mulberry32(seed);
  const out: Rec[] = [];
  let clock = 1000;
  for (let i = 0; i < n; i++) {
    clock += Math.floor(rnd() * 15);
    out.push({ key: `k${Math.floor(rnd() * 3)}`, ts: clock - Math.floor(rnd() * DISORDER_MS) });
  }
  return out;
}

/** Runs the records through `windowed` and returns the last value written per window (null: deleted). */
function runTopology(
  records: Rec[],
  windowed: (g: KGroupedStream<string, string>) => KTable<Windowed<string>, number>,
  partitions: number,
  stores: Stores,
): Map<string, number> {
  const b = new StreamsBuilder({ applicationId: 'prop' });
  windowed(b.stream('in', { key: Serdes.string, value: Serdes.string }).groupByKey())
    .toStream()
    .to('out', { key: Serdes.windowed(Serdes.string), value: Serdes.number });
  const stateDir = stores === 'LMDB' ? fs.mkdtempSync(path.join(os.tmpdir(), 'tide-windows-')) : undefined;
  const driver = new TopologyTestDriver(b.build(), { partitions: { in: partitions }, stateDir });
  const input = driver.inputTopic('in', Serdes.string, Serdes.string);
  for (const r of records) input.pipeInput(r.key, 'x', r.ts);
  expect(driver.metrics().droppedLateRecords).toBe(0);
  const last = new Map<string, number | null>();
  for (const r of driver
    .outputTopic('out', Serdes.windowed(Serdes.string), Serdes.number)
    .readRecordsToList()) {
    last.set(`${r.key!.key}@${r.key!.window.start}-${r.key!.window.end}`, r.value);
  }
  driver.close();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
  return new Map([...last].filter((e): e is [string, number] => e[1] !== null));
}

function count(m: Map<string, number>, id: string): void {
  m.set(id, (m.get(id) ?? 0) + 1);
}

function referenceTime(records: Rec[], size: number, advance: number): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of records) {
    for (let start = r.ts - (r.ts % advance); start > r.ts - size; start -= advance) {
      if (start >= 0) count(m, `${r.key}@${start}-${start + size}`);
    }
  }
  return m;
}

function referenceSliding(records: Rec[], d: number): Map<string, number> {
  const m = new Map<string, number>();
  for (const key of new Set(records.map((r) => r.key))) {
    const ts = records.filter((r) => r.key === key).map((r) => r.ts);
    const starts = new Set<number>();
    for (const t of ts) {
      starts.add(t - d);
      if (ts.some((s) => s > t && s <= t + 1 + d)) starts.add(t + 1);
    }
    for (const start of starts)
      m.set(`${key}@${start}-${start + d}`, ts.filter((t) => t >= start && t <= start + d).length);
  }
  return m;
}

function referenceSessions(records: Rec[], gap: number): Map<string, number> {
  const m = new Map<string, number>();
  for (const key of new Set(records.map((r) => r.key))) {
    const ts = records
      .filter((r) => r.key === key)
      .map((r) => r.ts)
      .sort((a, b) => a - b);
    let start = ts[0];
    let n = 0;
    for (let i = 0; i < ts.length; i++) {
      n++;
      if (i === ts.length - 1 || ts[i + 1] - ts[i] > gap) {
        m.set(`${key}@${start}-${ts[i]}`, n);
        start = ts[i + 1];
        n = 0;
      }
    }
  }
  return m;
}

const sorted = (m: Map<string, number>) => [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

type Stores = 'in memory' | 'LMDB';
const cases = [11, 29, 2026].flatMap((seed) =>
  (['in memory', 'LMDB'] as const).map((stores) => [seed, stores] as const),
);

describe.each(cases)('windowed counts against a reference model (seed %i, %s stores)', (seed, stores) => {
  const records = randomInput(seed, 300);
  it.each([1, 3])('tumbling windows, %i input partition(s)', (partitions) => {
    const got = runTopology(
      records,
      (g) => g.windowedBy(TimeWindows.ofSizeAndGrace(50, DISORDER_MS)).count({ name: 'c' }),
      partitions,
      stores,
    );
    expect(sorted(got)).toEqual(sorted(referenceTime(records, 50, 50)));
  });
  it('hopping windows', () => {
    const got = runTopology(
      records,
      (g) => g.windowedBy(TimeWindows.ofSizeAndGrace(60, DISORDER_MS).advanceBy(20)).count({ name: 'c' }),
      2,
      stores,
    );
    expect(sorted(got)).toEqual(sorted(referenceTime(records, 60, 20)));
  });
  it('sliding windows', () => {
    const got = runTopology(
      records,
      (g) => g.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(30, DISORDER_MS)).count({ name: 'c' }),
      2,
      stores,
    );
    expect(sorted(got)).toEqual(sorted(referenceSliding(records, 30)));
  });
  it('session windows', () => {
    const got = runTopology(
      records,
      (g) => g.windowedBy(SessionWindows.ofInactivityGapAndGrace(12, DISORDER_MS + 12)).count({ name: 'c' }),
      2,
      stores,
    );
    expect(sorted(got)).toEqual(sorted(referenceSessions(records, 12)));
  });
});
