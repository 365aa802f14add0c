import {
  Serdes,
  Stores,
  StreamTask,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
  TopologyTestDriver,
  type KeyValueStore,
  type ProcessorContext,
} from '../../../streams';

const num = { key: Serdes.string, value: Serdes.number };

describe("Kafka Streams' time rules", () => {
  it('processes the partition with the lowest head timestamp first', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const seen: string[] = [];
    b.stream('a', num)
      .merge(b.stream('b', num))
      .foreach((k, v) => seen.push(`${k}${v}`));
    const driver = new TopologyTestDriver(b.build(), { maxTaskIdleMs: 100 });
    driver.inputTopic('a', Serdes.string, Serdes.number).pipeRecords([
      { key: 'a', value: 5, timestampMs: 5 },
      { key: 'a', value: 30, timestampMs: 30 },
    ]);
    expect(seen).toEqual([]); // waiting for b: it has no data yet
    driver.inputTopic('b', Serdes.string, Serdes.number).pipeRecords([
      { key: 'b', value: 10, timestampMs: 10 },
      { key: 'b', value: 20, timestampMs: 20 },
      { key: 'b', value: 40, timestampMs: 40 },
    ]);
    // Both have data: by head timestamp until a runs dry; then the task waits for a again.
    expect(seen).toEqual(['a5', 'b10', 'b20', 'a30']);
    driver.advanceWallClock(99);
    expect(seen).toHaveLength(4);
    driver.advanceWallClock(1); // idle time over: processes without a
    expect(seen).toEqual(['a5', 'b10', 'b20', 'a30', 'b40']);
    expect(driver.metrics().tasks[0].enforcedProcessing).toBe(1);
  });

  it('with maxTaskIdleMs 0 (default) a task never waits for empty partitions', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const seen: number[] = [];
    b.stream('a', num)
      .merge(b.stream('b', num))
      .foreach((_k, v) => seen.push(v));
    const driver = new TopologyTestDriver(b.build());
    driver.inputTopic('a', Serdes.string, Serdes.number).pipeInput('a', 30, 30);
    driver.inputTopic('b', Serdes.string, Serdes.number).pipeInput('b', 10, 10);
    expect(seen).toEqual([30, 10]);
  });

  it('event time comes from the timestamp extractor; negative times are skipped and counted', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('events', {
      key: Serdes.string,
      value: Serdes.json<{ at: number }>(),
      timestampExtractor: (r) => (r.value as { at: number }).at,
    })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(100))
      .count({ name: 'c' });
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('events', Serdes.string, Serdes.json<{ at: number }>());
    input.pipeInput('k', { at: 150 }, 999_999); // the record timestamp is ignored
    input.pipeInput('k', { at: -1 }, 5);
    expect(driver.getWindowStore('c').fetch('k', 100)).toBe(1);
    expect(driver.metrics().tasks[0].skippedInvalidTimestamp).toBe(1);
    expect(driver.metrics().tasks[0].streamTimeMs).toBe(150);
  });

  it('stream time is per task: one partition running ahead does not close windows of another', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('events', num)
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(10))
      .count({ name: 'c' })
      .suppress(Suppressed.untilWindowCloses(), { name: 'final' })
      .toStream()
      .to('out', { key: Serdes.windowed(Serdes.string), value: Serdes.number });
    const driver = new TopologyTestDriver(b.build(), { partitions: { events: 2 } });
    const input = driver.inputTopic('events', Serdes.string, Serdes.number);
    input.pipeInput('k0', 1, 1, { partition: 0 });
    input.pipeInput('k1', 1, 1, { partition: 1 });
    input.pipeInput('k0', 1, 100, { partition: 0 }); // closes [0,10) in task 0_0 only
    const out = driver.outputTopic('out', Serdes.windowed(Serdes.string), Serdes.number);
    expect(out.readRecordsToList().map((r) => r.key!.key)).toEqual(['k0']);
    expect(driver.metrics().tasks.map((t) => [t.id, t.streamTimeMs])).toEqual([
      ['0_0', 100],
      ['0_1', 1],
    ]);
    input.pipeInput('k1', 1, 50, { partition: 1 });
    expect(out.readRecordsToList().map((r) => r.key!.key)).toEqual(['k1']);
  });

  it('punctuators fire on stream time and on wall-clock time, skipping missed intervals', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const streamTicks: number[] = [];
    const wallTicks: number[] = [];
    b.stream('in', num)
      .process<string, number>(
        () => {
          let ctx!: ProcessorContext;
          let counts!: KeyValueStore<string, number>;
          return {
            init(c) {
              ctx = c;
              counts = c.getStateStore<KeyValueStore<string, number>>('per-key');
              c.schedule(10, 'streamTime', (t) => streamTicks.push(t));
              c.schedule(1000, 'wallClock', (t) => {
                wallTicks.push(t);
                for (const [k, n] of counts.all())
                  ctx.forward({ key: k, value: n, timestamp: t, headers: [] });
              });
            },
            process(r) {
              counts.put(r.key, (counts.get(r.key) ?? 0) + 1);
            },
          };
        },
        {
          name: 'counter',
          stores: [Stores.keyValue('per-key', { key: Serdes.string, value: Serdes.number })],
        },
      )
      .to('counts', { key: Serdes.string, value: Serdes.number });
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('in', Serdes.string, Serdes.number);
    for (const t of [3, 5, 12, 45, 49, 50]) input.pipeInput('k', 0, t);
    expect(streamTicks).toEqual([3, 12, 45, 50]);
    driver.advanceWallClock(999);
    expect(wallTicks).toEqual([]);
    driver.advanceWallClock(1);
    driver.advanceWallClock(2500);
    expect(wallTicks).toEqual([1000, 3500]);
    driver.advanceWallClock(500);
    expect(wallTicks).toEqual([1000, 3500, 4000]);
    expect(driver.outputTopic('counts', Serdes.string, Serdes.number).readKeyValuesToList()).toEqual([
      ['k', 6],
      ['k', 6],
      ['k', 6],
    ]);
    expect(driver.getKeyValueStore('per-key').get('k')).toBe(6);
  });
});

describe('StreamTask offsets', () => {
  it('commits the offset after a skipped record only once the records before it are processed', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('a', {
      key: Serdes.string,
      value: Serdes.number,
      timestampExtractor: (r) => r.value as number,
    })
      .merge(b.stream('b', num))
      .foreach(() => undefined);
    const topology = b.build();
    const task = new StreamTask(
      {
        id: '0_0',
        partition: 0,
        applicationId: 'app',
        nodes: topology.subtopologies[0].nodes,
        stores: [],
        inputs: [
          { topic: 'a', partition: 0 },
          { topic: 'b', partition: 0 },
        ],
      },
      {
        collector: { partitionsOf: () => 1, send: () => undefined },
        wallClockMs: () => 0,
        caching: false,
        maxTaskIdleMs: 1_000, // waits for b: nothing is processed yet
        createStore: () => {
          throw new Error('no stores');
        },
        globalStores: new Map(),
      },
    );
    const rec = (offset: number, v: number) => ({
      key: Buffer.from('k'),
      value: Serdes.number.serialize(v),
      timestampMs: v,
      offset,
      headers: [],
    });
    task.addRecords('a', 0, [rec(0, 5), rec(1, -1)]);
    expect(task.process()).toBe(false);
    expect(task.commit()).toEqual([]); // nothing processed: nothing to commit, not even the skipped one
    task.addRecords('b', 0, [rec(0, 7)]);
    expect(task.process()).toBe(true); // a@5: the skipped record behind it is not committed yet
    expect(task.commit()).toEqual([{ topic: 'a', partition: 0, offset: 1 }]);
    while (task.process()); // the skipped record; then b waits for a (maxTaskIdleMs)
    expect(task.commit()).toEqual([{ topic: 'a', partition: 0, offset: 2 }]);
    expect(task.metrics.skippedInvalidTimestamp).toBe(1);
    expect(task.metrics.recordsIn).toBe(1);
    expect(task.buffered()).toBe(1);
  });
});
