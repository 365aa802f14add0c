/**
 * The record cache changes when results go downstream, never what they are: on seeded random
 * input (several partitions, out-of-order and late records, commits at random points, a budget
 * small enough to evict), the final results of suppressed windowed and session counts, the
 * stores' contents, and the latest update per key are the same with caching on and off, in
 * memory and on LMDB.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  Serdes,
  SessionWindows,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
  TopologyTestDriver,
  type Topology,
} from '../../../streams';

function rnd(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface In {
  key: string;
  value: string;
  timestampMs: number;
}

function input(seed: number, n: number): { records: In[]; commitsAfter: Set<number> } {
  const r = rnd(seed);
  const records: In[] = [];
  const commitsAfter = new Set<number>();
  let clock = 1_000;
  for (let i = 0; i < n; i++) {
    clock += Math.floor(r() * 6);
    const back = r() < 0.08 ? Math.floor(r() * 300) : Math.floor(r() * 15);
    records.push({ key: `k${Math.floor(r() * 12)}`, value: 'x', timestampMs: Math.max(0, clock - back) });
    if (r() < 0.03) commitsAfter.add(i);
  }
  return { records, commitsAfter };
}

interface Run {
  out: [string, number | null][];
  store: string[];
  late: number;
}

function run(
  topology: Topology,
  seed: number,
  caching: boolean,
  readStore: (d: TopologyTestDriver) => string[],
  stateDir?: string,
): Run {
  const driver = new TopologyTestDriver(topology, {
    partitions: { in: 3, out: 3 },
    caching,
    cacheMaxBytes: 2_000, // a few dozen entries: evictions happen between commits
    stateDir,
  });
  const { records, commitsAfter } = input(seed, 600);
  const topic = driver.inputTopic('in', Serdes.string, Serdes.string);
  let batch: In[] = [];
  records.forEach((rec, i) => {
    batch.push(rec);
    if (commitsAfter.has(i)) {
      topic.pipeRecords(batch);
      batch = [];
      driver.commit();
    }
  });
  topic.pipeRecords(batch);
  driver.commit();
  const out = driver
    .outputTopic('out', Serdes.string, Serdes.number)
    .readRecordsToList()
    .map((r) => [r.key as string, r.value] as [string, number | null]);
  const result = { out, store: readStore(driver).sort(), late: driver.metrics().droppedLateRecords };
  driver.close();
  return result;
}

const windowed = (w: { key: string; window: { start: number; end: number } }): string =>
  `${w.key}@${w.window.start}-${w.window.end}`;

function hoppingCount(suppress: boolean): Topology {
  const b = new StreamsBuilder({ applicationId: 'app' });
  let t = b
    .stream('in', { key: Serdes.string, value: Serdes.string })
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeAndGrace(100, 30).advanceBy(50))
    .count({ name: 'c' });
  if (suppress) t = t.suppress(Suppressed.untilWindowCloses(), { name: 's' });
  t.toStream()
    .selectKey((k) => windowed(k))
    .to('out', { key: Serdes.string, value: Serdes.number });
  return b.build();
}

function sessionCount(suppress: boolean): Topology {
  const b = new StreamsBuilder({ applicationId: 'app' });
  let t = b
    .stream('in', { key: Serdes.string, value: Serdes.string })
    .groupByKey()
    .windowedBy(SessionWindows.ofInactivityGapAndGrace(20, 30))
    .count({ name: 'c' });
  if (suppress) t = t.suppress(Suppressed.untilWindowCloses(), { name: 's' });
  t.toStream()
    .selectKey((k) => windowed(k))
    .to('out', { key: Serdes.string, value: Serdes.number });
  return b.build();
}

const windowStore = (d: TopologyTestDriver): string[] =>
  d
    .getWindowStore<string, number>('c')
    .all()
    .map((e) => `${windowed(e)}=${e.value}`);
const sessionStore = (d: TopologyTestDriver): string[] =>
  d
    .getSessionStore<string, number>('c')
    .all()
    .map((e) => `${windowed(e)}=${e.value}`);

function latest(out: [string, number | null][]): Map<string, number | null> {
  return new Map(out);
}

function sorted(out: [string, number | null][]): string[] {
  return out.map(([k, v]) => `${k}=${v}`).sort();
}

describe.each([7, 42, 1234])('caching on and off give the same results (seed %i)', (seed) => {
  let stateDir: string;
  beforeEach(() => (stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-caching-eq-'))));
  afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  it('suppressed hopping-window counts: the same final results, once each', () => {
    const off = run(hoppingCount(true), seed, false, windowStore);
    const on = run(hoppingCount(true), seed, true, windowStore);
    expect(on.out.length).toBeGreaterThan(0);
    expect(sorted(on.out)).toEqual(sorted(off.out));
    expect(new Set(on.out.map(([k]) => k)).size).toBe(on.out.length);
    expect(on.late).toBe(off.late);
    expect(on.store).toEqual(off.store);
  });

  it('suppressed session counts: the same final results, but for sessions that merged later', () => {
    const off = run(sessionCount(true), seed, false, sessionStore);
    const on = run(sessionCount(true), seed, true, sessionStore);
    expect(on.out.length).toBeGreaterThan(0);
    expect(on.late).toBe(off.late);
    expect(on.store).toEqual(off.store);
    // A closed session can still be merged into a later one whose own close is later (Kafka's
    // rule too). Uncached, it may be emitted before the merge; cached, its update can still be
    // waiting when the merge removes it. Every other final result is the same.
    const kept = new Set(off.store.map((s) => s.split('=')[0]));
    const offResults = sorted(off.out);
    const onResults = sorted(on.out);
    expect(onResults.every((r) => offResults.includes(r))).toBe(true);
    for (const r of offResults.filter((x) => !onResults.includes(x))) {
      expect(kept.has(r.split('=')[0])).toBe(false);
    }
  });

  it('every-update windowed counts on LMDB: the same store and latest value per window, fewer updates', () => {
    const off = run(hoppingCount(false), seed, false, windowStore, path.join(stateDir, 'off'));
    const on = run(hoppingCount(false), seed, true, windowStore, path.join(stateDir, 'on'));
    expect(on.store).toEqual(off.store);
    expect(latest(on.out)).toEqual(latest(off.out));
    expect(on.out.length).toBeLessThan(off.out.length);
  });

  it('every-update session counts on LMDB: the same sessions and latest value per session', () => {
    const off = run(sessionCount(false), seed, false, sessionStore, path.join(stateDir, 'off'));
    const on = run(sessionCount(false), seed, true, sessionStore, path.join(stateDir, 'on'));
    expect(on.store).toEqual(off.store);
    expect(latest(on.out)).toEqual(latest(off.out));
  });

  it('count per key on LMDB, through a table mapValues: the same table and latest values', () => {
    const build = (): Topology => {
      const b = new StreamsBuilder({ applicationId: 'app' });
      b.stream('in', { key: Serdes.string, value: Serdes.string })
        .groupByKey()
        .count({ name: 'c' })
        .mapValues((n) => n * 10)
        .toStream()
        .to('out', { value: Serdes.number });
      return b.build();
    };
    const kv = (d: TopologyTestDriver): string[] =>
      d
        .getKeyValueStore<string, number>('c')
        .all()
        .map(([k, v]) => `${k}=${v}`);
    const off = run(build(), seed, false, kv, path.join(stateDir, 'off'));
    const on = run(build(), seed, true, kv, path.join(stateDir, 'on'));
    expect(on.store).toEqual(off.store);
    expect(latest(on.out)).toEqual(latest(off.out));
    expect(on.out.length).toBeLessThan(off.out.length);
  });
});
