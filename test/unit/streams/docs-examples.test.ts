/** The examples of docs/streams.md, run through the test driver so the guide stays true. */
import { Tide } from '../../../client';
import {
  Serdes,
  Stores,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
  TopologyTestDriver,
  type KeyValueStore,
  type ProcessorContext,
} from '../../../streams';

interface PageView {
  user: string;
  page: string;
}

describe('docs/streams.md examples', () => {
  it('page views per user per minute, final results only', async () => {
    const tide = new Tide({ bootstrap: ['127.0.0.1:1'] });
    const b = tide.streams({ applicationId: 'page-views' });
    b.stream('page-views', { key: Serdes.string, value: Serdes.json<PageView>() })
      .selectKey((_k, view) => view.user)
      .groupByKey({ key: Serdes.string })
      .windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000))
      .count({ name: 'views-per-minute' })
      .suppress(Suppressed.untilWindowCloses(), { name: 'views-final' })
      .toStream()
      .to('views-per-user', { key: Serdes.windowed(Serdes.string), value: Serdes.number });
    const app = b.build();
    expect(app.describe().internalTopics.map((t) => t.name)).toContain(
      'page-views-views-per-minute-repartition',
    );
    const driver = new TopologyTestDriver(app, { partitions: { 'page-views': 3 } });
    const views = driver.inputTopic('page-views', Serdes.string, Serdes.json<PageView>());
    views.pipeInput('v1', { user: 'ann', page: '/' }, 1_000);
    views.pipeInput('v2', { user: 'ann', page: '/a' }, 30_000);
    views.pipeInput('v3', { user: 'bob', page: '/' }, 59_000);
    views.pipeInput('v4', { user: 'ann', page: '/b' }, 65_000); // the second minute
    views.pipeInput('v5', { user: 'bob', page: '/late' }, 55_000); // out of order, first minute still open
    const out = driver.outputTopic('views-per-user', Serdes.windowed(Serdes.string), Serdes.number);
    expect(out.isEmpty()).toBe(true);
    // Users are counted in the tasks their key hashes to, each on its own stream time: the first
    // minute closes (60 s + 10 s grace) in a task once that task sees a record at 70 s or later.
    views.pipeInput('v6', { user: 'ann', page: '/' }, 70_000);
    views.pipeInput('v7', { user: 'bob', page: '/' }, 70_000);
    const got = out.readRecordsToList().map((r) => [r.key!.key, r.key!.window.start, r.value]);
    expect(got.sort()).toEqual([
      ['ann', 0, 2],
      ['bob', 0, 2],
    ]);
    await tide.close();
  });

  it('the Processor API example', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('in', { key: Serdes.string, value: Serdes.number })
      .process<string, number>(
        () => {
          let ctx!: ProcessorContext;
          let counts!: KeyValueStore<string, number>;
          return {
            init(c) {
              ctx = c;
              counts = c.getStateStore('per-key');
              c.schedule(60_000, 'wallClock', (now) => {
                for (const [k, n] of counts.all())
                  ctx.forward({ key: k, value: n, timestamp: now, headers: [] });
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
    input.pipeInput('a', 1, 1);
    input.pipeInput('a', 1, 2);
    driver.advanceWallClock(60_000);
    expect(driver.outputTopic('counts', Serdes.string, Serdes.number).readKeyValuesToList()).toEqual([
      ['a', 2],
    ]);
  });
});
