import {
  Serdes,
  SessionWindows,
  SlidingWindows,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
  TopologyTestDriver,
  type KTable,
  type KStream,
  type Windowed,
} from '../../../streams';

const wkey = Serdes.windowed(Serdes.string);

/** A driver over `events` (string → string) whose windowed table is written to `out`. */
function run(
  build: (s: KStream<string, string>) => KTable<Windowed<string>, number>,
  options: { partitions?: Record<string, number> } = {},
) {
  const b = new StreamsBuilder({ applicationId: 'app' });
  build(b.stream('events', { key: Serdes.string, value: Serdes.string }))
    .toStream()
    .to('out', { key: wkey, value: Serdes.number });
  const driver = new TopologyTestDriver(b.build(), options);
  const input = driver.inputTopic('events', Serdes.string, Serdes.string);
  const out = driver.outputTopic('out', wkey, Serdes.number);
  const pipe = (key: string, ts: number) => input.pipeInput(key, 'v', ts);
  /** The last value written per window: `key@start-end` → value (null: deleted). */
  const latest = () => {
    const m = new Map<string, number | null>();
    for (const r of out.readRecordsToList())
      m.set(`${r.key!.key}@${r.key!.window.start}-${r.key!.window.end}`, r.value);
    return m;
  };
  return { driver, pipe, out, latest };
}

describe('tumbling and hopping windows', () => {
  it('counts per window, accepts records within grace, drops and counts later ones', () => {
    const { driver, pipe, latest } = run((s) =>
      s.groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(10, 5)).count({ name: 'c' }),
    );
    pipe('k', 1);
    pipe('k', 5);
    pipe('k', 12);
    pipe('k', 3); // stream time 12 < 10 + 5: window [0,10) still open
    pipe('k', 16); // stream time 16: [0,10) closes
    pipe('k', 4); // late: dropped and counted
    pipe('k', 11);
    expect(Object.fromEntries(latest())).toEqual({ 'k@0-10': 3, 'k@10-20': 3 });
    expect(driver.metrics().droppedLateRecords).toBe(1);
    const store = driver.getWindowStore<string, number>('c');
    expect(store.fetch('k', 0)).toBe(3);
    expect(store.fetch('k', 10)).toBe(3);
  });

  it('with no grace a window closes exactly at its end', () => {
    const { driver, pipe, latest } = run((s) =>
      s.groupByKey().windowedBy(TimeWindows.ofSizeWithNoGrace(10)).count({ name: 'c' }),
    );
    pipe('k', 9);
    pipe('k', 10);
    pipe('k', 9);
    expect(Object.fromEntries(latest())).toEqual({ 'k@0-10': 1, 'k@10-20': 1 });
    expect(driver.metrics().droppedLateRecords).toBe(1);
  });

  it('hopping windows put a record in every window that holds it', () => {
    const { pipe, latest } = run((s) =>
      s.groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(10, 100).advanceBy(5)).count({ name: 'c' }),
    );
    pipe('k', 7);
    pipe('k', 12);
    expect(Object.fromEntries(latest())).toEqual({ 'k@0-10': 1, 'k@5-15': 2, 'k@10-20': 1 });
  });

  it('aggregate and reduce over windows', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const g = b
      .stream('n', { key: Serdes.string, value: Serdes.number })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(10, 0));
    g.aggregate(
      () => [] as number[],
      (_k, v, list) => [...list, v],
      { name: 'lists', value: Serdes.json<number[]>() },
    );
    g.reduce((a, v) => a + v, { name: 'sums' });
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('n', Serdes.string, Serdes.number);
    input.pipeInput('k', 1, 1);
    input.pipeInput('k', 2, 2);
    input.pipeInput('k', 3, 11);
    expect(driver.getWindowStore('lists').fetch('k', 0)).toEqual([1, 2]);
    expect(driver.getWindowStore('sums').fetch('k', 0)).toBe(3);
    expect(driver.getWindowStore('sums').fetch('k', 10)).toBe(3);
  });
});

describe('sliding windows', () => {
  it('makes the windows KIP-450 defines, out-of-order records included', () => {
    const { pipe, latest } = run((s) =>
      s.groupByKey().windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(10, 100)).count({ name: 'c' }),
    );
    for (const t of [100, 105, 120, 108]) pipe('k', t);
    expect(Object.fromEntries(latest())).toEqual({
      'k@90-100': 1,
      'k@95-105': 2,
      'k@98-108': 3,
      'k@101-111': 2,
      'k@106-116': 1,
      'k@110-120': 1,
    });
  });

  it('drops a record whose every window has closed', () => {
    const { driver, pipe } = run((s) =>
      s.groupByKey().windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(10, 5)).count({ name: 'c' }),
    );
    pipe('k', 100);
    pipe('k', 85); // windows holding 85 end by 95, and 95 + 5 <= 100: all closed, late
    pipe('k', 86); // kept: a window ending at 96 would still be open (96 + 5 > 100)
    pipe('k', 96); // makes that window: [86, 96] holds 86 and 96
    pipe('k', 200);
    pipe('k', 180); // 180 + 10 + 5 <= 200: late
    expect(driver.getWindowStore<string, number>('c').fetch('k', 86)).toBe(2);
    expect(driver.metrics().droppedLateRecords).toBe(2);
  });
});

describe('session windows', () => {
  it('merges sessions a record bridges and deletes the merged-away ones', () => {
    const { driver, pipe, out } = run((s) =>
      s.groupByKey().windowedBy(SessionWindows.ofInactivityGapAndGrace(5, 20)).count({ name: 's' }),
    );
    pipe('k', 0);
    pipe('k', 3);
    pipe('k', 10);
    expect(out.readRecordsToList().map((r) => [r.key!.window, r.value])).toEqual([
      [{ start: 0, end: 0 }, 1],
      [{ start: 0, end: 0 }, null],
      [{ start: 0, end: 3 }, 2],
      [{ start: 10, end: 10 }, 1],
    ]);
    pipe('k', 7); // within 5 of 3 and of 10: one session [0, 10]
    expect(out.readRecordsToList().map((r) => [r.key!.window, r.value])).toEqual([
      [{ start: 0, end: 3 }, null],
      [{ start: 10, end: 10 }, null],
      [{ start: 0, end: 10 }, 4],
    ]);
    expect(
      driver
        .getSessionStore<string, number>('s')
        .fetch('k')
        .map((e) => [e.window, e.value]),
    ).toEqual([[{ start: 0, end: 10 }, 4]]);
  });

  it('drops a record whose session closed (end + grace < stream time)', () => {
    const { driver, pipe } = run((s) =>
      s.groupByKey().windowedBy(SessionWindows.ofInactivityGapAndGrace(5, 10)).count({ name: 's' }),
    );
    pipe('k', 100);
    pipe('k', 90); // 90 + 10 >= 100: accepted
    pipe('k', 89); // merges into [89, 90]: 90 + 10 >= 100, accepted
    pipe('j', 200);
    pipe('k', 150); // 150 + 10 < 200: late
    expect(driver.metrics().droppedLateRecords).toBe(1);
    expect(
      driver
        .getSessionStore<string, number>('s')
        .fetch('k')
        .map((e) => [e.window, e.value]),
    ).toEqual([
      [{ start: 89, end: 90 }, 2],
      [{ start: 100, end: 100 }, 1],
    ]);
  });

  it('session aggregate uses the merger', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('n', { key: Serdes.string, value: Serdes.number })
      .groupByKey()
      .windowedBy(SessionWindows.ofInactivityGapWithNoGrace(5))
      .aggregate(
        () => 0,
        (_k, v, sum) => sum + v,
        (_k, a, c) => a + c,
        { name: 'sums', value: Serdes.number },
      );
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('n', Serdes.string, Serdes.number);
    input.pipeInput('k', 1, 10);
    input.pipeInput('k', 2, 20);
    input.pipeInput('k', 4, 15);
    expect(
      driver
        .getSessionStore<string, number>('sums')
        .fetch('k')
        .map((e) => [e.window, e.value]),
    ).toEqual([[{ start: 10, end: 20 }, 7]]);
  });
});

describe('suppress', () => {
  it('untilWindowCloses emits one final result per window once stream time passes end + grace', () => {
    const { driver, pipe, out } = run((s) =>
      s
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(10, 5))
        .count({ name: 'c' })
        .suppress(Suppressed.untilWindowCloses(), { name: 'final' }),
    );
    pipe('k', 1);
    pipe('k', 3);
    pipe('j', 8);
    pipe('k', 12);
    pipe('k', 14);
    expect(out.isEmpty()).toBe(true);
    expect(driver.suppressStatus('final')).toEqual([
      {
        taskId: '0_0',
        streamTimeMs: 14,
        held: [
          { key: { key: 'k', window: { start: 0, end: 10 } }, dueMs: 15, waitingForMs: 1 },
          { key: { key: 'j', window: { start: 0, end: 10 } }, dueMs: 15, waitingForMs: 1 },
          { key: { key: 'k', window: { start: 10, end: 20 } }, dueMs: 25, waitingForMs: 11 },
        ],
      },
    ]);
    expect(() => driver.suppressStatus('c')).toThrow(/not a suppress node/);
    driver.advanceWallClock(60_000); // wall time does not close windows: stream time does
    expect(out.isEmpty()).toBe(true);
    pipe('x', 15); // another key moves stream time to 15: [0,10) closes for k and j
    expect(out.readRecordsToList().map((r) => [r.key!.key, r.key!.window.start, r.value])).toEqual([
      ['k', 0, 2],
      ['j', 0, 1],
    ]);
    pipe('k', 4); // late: dropped, nothing emitted
    expect(out.isEmpty()).toBe(true);
    expect(driver.metrics().droppedLateRecords).toBe(1);
    pipe('x', 25);
    expect(out.readRecordsToList().map((r) => [r.key!.key, r.key!.window.start, r.value])).toEqual([
      ['k', 10, 2],
      ['x', 10, 1],
    ]);
  });

  it('untilWindowCloses on sessions never emits merged-away sessions', () => {
    const { pipe, out } = run((s) =>
      s
        .groupByKey()
        .windowedBy(SessionWindows.ofInactivityGapAndGrace(5, 0))
        .count({ name: 's' })
        .suppress(Suppressed.untilWindowCloses(), { name: 'final' }),
    );
    pipe('k', 0);
    pipe('k', 4);
    pipe('k', 8);
    pipe('k', 30);
    expect(out.readRecordsToList().map((r) => [r.key!.window, r.value])).toEqual([[{ start: 0, end: 8 }, 3]]);
  });

  it('untilTimeLimit emits the latest value of a key a time limit after its first held update', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('w', { key: Serdes.string, value: Serdes.string })
      .groupByKey()
      .count({ name: 'c' })
      .suppress(Suppressed.untilTimeLimit(10), { name: 'rate-limited' })
      .toStream()
      .to('out', { value: Serdes.number });
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('w', Serdes.string, Serdes.string);
    const out = driver.outputTopic('out', Serdes.string, Serdes.number);
    input.pipeInput('k', 'x', 1);
    input.pipeInput('k', 'x', 5);
    input.pipeInput('k', 'x', 10);
    expect(out.isEmpty()).toBe(true);
    input.pipeInput('other', 'x', 11);
    expect(out.readKeyValuesToList()).toEqual([['k', 3]]);
  });

  it('untilWindowCloses on a table that is not windowed is a build error', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('w', { key: Serdes.string, value: Serdes.string })
      .groupByKey()
      .count({ name: 'c' })
      .suppress(Suppressed.untilWindowCloses(), { name: 'f' });
    expect(() => b.build()).toThrow(/untilWindowCloses needs a windowed table/);
  });
});
