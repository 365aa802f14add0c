/**
 * Windowed count + suppress(untilWindowCloses) on random keyed input with out-of-order timestamps,
 * late records included, against a reference model that simulates each partition's stream time:
 * every closed window is emitted exactly once, with the count of its on-time records, and the late
 * records are exactly the ones dropped. Seeded.
 */
import { partitionForKey } from '../../../client';
import { Serdes, StreamsBuilder, Suppressed, TimeWindows, TopologyTestDriver } from '../../../streams';

function rnd(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SIZE = 100;
const ADVANCE = 50;
const GRACE = 30;
const PARTITIONS = 3;

describe.each([3, 17, 99])('suppressed hopping-window counts against a reference (seed %i)', (seed) => {
  it('emits each closed window once with its on-time count; late records are dropped and counted', () => {
    const r = rnd(seed);
    const records: { key: string; ts: number }[] = [];
    let clock = 1_000;
    for (let i = 0; i < 400; i++) {
      clock += Math.floor(r() * 8);
      // Mostly small disorder, sometimes far beyond grace (late).
      const back = r() < 0.1 ? Math.floor(r() * 300) : Math.floor(r() * 20);
      records.push({ key: `k${Math.floor(r() * 6)}`, ts: Math.max(0, clock - back) });
    }

    // Reference: per partition, stream time and the windows' on-time counts.
    const streamTime = new Array<number>(PARTITIONS).fill(-1);
    const counts = new Map<string, { count: number; closesAt: number; partition: number }>();
    let late = 0;
    for (const rec of records) {
      const p = partitionForKey(Buffer.from(rec.key), PARTITIONS);
      streamTime[p] = Math.max(streamTime[p], rec.ts);
      let accepted = false;
      // Windows [start, start + SIZE) holding ts, starts multiples of ADVANCE; closed at end + grace.
      for (let start = rec.ts - (rec.ts % ADVANCE); start > rec.ts - SIZE && start >= 0; start -= ADVANCE) {
        const closesAt = start + SIZE + GRACE;
        if (closesAt <= streamTime[p]) continue;
        accepted = true;
        const id = `${rec.key}@${start}`;
        const c = counts.get(id) ?? { count: 0, closesAt, partition: p };
        c.count++;
        counts.set(id, c);
      }
      if (!accepted) late++;
    }
    const expected = [...counts]
      .filter(([, c]) => c.closesAt <= streamTime[c.partition])
      .map(([id, c]) => `${id}=${c.count}`)
      .sort();

    const b = new StreamsBuilder({ applicationId: 'prop' });
    b.stream('in', { key: Serdes.string, value: Serdes.string })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(SIZE, GRACE).advanceBy(ADVANCE))
      .count({ name: 'c' })
      .suppress(Suppressed.untilWindowCloses(), { name: 'final' })
      .toStream()
      .to('out', { key: Serdes.windowed(Serdes.string), value: Serdes.number });
    const driver = new TopologyTestDriver(b.build(), { partitions: { in: PARTITIONS } });
    const input = driver.inputTopic('in', Serdes.string, Serdes.string);
    for (const rec of records) input.pipeInput(rec.key, 'x', rec.ts);
    const got = driver
      .outputTopic('out', Serdes.windowed(Serdes.string), Serdes.number)
      .readRecordsToList()
      .map((o) => `${o.key!.key}@${o.key!.window.start}=${o.value}`)
      .sort();
    expect(late).toBeGreaterThan(0);
    expect(got).toEqual(expected);
    expect(driver.metrics().droppedLateRecords).toBe(late);
  });
});
