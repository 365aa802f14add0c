/**
 * `npm run bench:streams-processing`: the cost of the streams library's processing layer, in one
 * process, with no network: records go through the TopologyTestDriver (serdes, partition queues,
 * head-timestamp choice, processors, stores, sinks) and the figure is records/s per workload. The
 * ceiling is the same records only deserialized and serialized again. The cluster benchmark of
 * issue #14 (end to end on `tide dev`, with changelogs) needs the runtime, which is not built yet.
 *
 *   npm run bench:streams-processing -- [--records 300000] [--keys 10000]
 */
import {
  Serdes,
  SlidingWindows,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
  TopologyTestDriver,
  JoinWindows,
} from '../streams';
import type { Topology } from '../streams';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface Options {
  records: number;
  keys: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { records: 300_000, keys: 10_000 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], Number(argv[i + 1])];
    if (flag === '--records') o.records = value;
    else if (flag === '--keys') o.keys = value;
    else throw new Error(`unknown flag ${flag}; see the header of bench/streams-processing.ts`);
  }
  return o;
}

interface Event {
  user: string;
  amount: number;
}

const events = { key: Serdes.string, value: Serdes.json<Event>() };

function app(build: (b: StreamsBuilder) => void): Topology {
  const b = new StreamsBuilder({ applicationId: 'bench' });
  build(b);
  return b.build();
}

const WORKLOADS: Record<string, () => Topology> = {
  'stateless filter + mapValues': () =>
    app((b) =>
      b
        .stream('in', events)
        .filter((_k, e) => e.amount >= 0)
        .mapValues((e) => e.amount * 2)
        .to('out', { value: Serdes.number }),
    ),
  'count per key': () =>
    app((b) =>
      b.stream('in', events).groupByKey().count({ name: 'c' }).toStream().to('out', { value: Serdes.number }),
    ),
  'tumbling 10 s count': () =>
    app((b) =>
      b
        .stream('in', events)
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(10_000, 1_000))
        .count({ name: 'c' })
        .toStream()
        .to('out', { key: Serdes.windowed(Serdes.string), value: Serdes.number }),
    ),
  'tumbling 10 s count + suppress': () =>
    app((b) =>
      b
        .stream('in', events)
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(10_000, 1_000))
        .count({ name: 'c' })
        .suppress(Suppressed.untilWindowCloses(), { name: 's' })
        .toStream()
        .to('out', { key: Serdes.windowed(Serdes.string), value: Serdes.number }),
    ),
  'sliding 1 s count': () =>
    app((b) =>
      b
        .stream('in', events)
        .groupByKey()
        .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(1_000, 1_000))
        .count({ name: 'c' })
        .toStream()
        .to('out', { key: Serdes.windowed(Serdes.string), value: Serdes.number }),
    ),
  'stream–table join': () =>
    app((b) => {
      const users = b.table('users', { key: Serdes.string, value: Serdes.string, name: 'users' });
      b.stream('in', events)
        .join(users, (e, name) => `${name}:${e.amount}`, { name: 'j' })
        .to('out', { value: Serdes.string });
    }),
  'stream–stream join (1 s)': () =>
    app((b) => {
      const other = b.stream('in2', events);
      b.stream('in', events)
        .join(other, (a, c) => a.amount + c.amount, JoinWindows.ofTimeDifferenceAndGrace(1_000, 1_000), {
          name: 'j',
        })
        .to('out', { value: Serdes.number });
    }),
};

function run(name: string, topology: Topology, o: Options, stateDir?: string): number {
  const driver = new TopologyTestDriver(topology, { stateDir });
  if (topology.stores.has('users')) {
    const users = driver.inputTopic('users', Serdes.string, Serdes.string);
    for (let k = 0; k < o.keys; k++) users.pipeInput(`user-${k}`, `name-${k}`, 0);
  }
  const input = driver.inputTopic('in', Serdes.string, Serdes.json<Event>());
  const input2 = topology.externalSourceTopics().includes('in2')
    ? driver.inputTopic('in2', Serdes.string, Serdes.json<Event>())
    : undefined;
  const start = process.hrtime.bigint();
  for (let i = 0; i < o.records; i++) {
    const user = `user-${i % o.keys}`;
    const target = input2 && i % 2 === 1 ? input2 : input;
    // ~1,000 records per second of event time, a little out of order.
    target.pipeInput(user, { user, amount: i }, i - (i % 7));
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  driver.close();
  void name;
  return o.records / seconds;
}

function ceiling(o: Options): number {
  const serde = Serdes.json<Event>();
  const start = process.hrtime.bigint();
  let bytes = 0;
  for (let i = 0; i < o.records; i++) {
    const user = `user-${i % o.keys}`;
    const k = Serdes.string.serialize(user);
    const v = serde.serialize({ user, amount: i });
    const e = serde.deserialize(v);
    bytes += Serdes.string.deserialize(k).length + serde.serialize(e).length;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (bytes === 0) throw new Error('unreachable');
  return o.records / seconds;
}

function main(): void {
  const o = parseArgs(process.argv.slice(2));
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  const top = ceiling(o);
  console.log(
    `streams processing layer, ${fmt(o.records)} records, ${fmt(o.keys)} keys, 1 partition, in-process`,
  );
  console.log(`${'serdes only (ceiling)'.padEnd(34)} ${fmt(top).padStart(12)} records/s`);
  // The LMDB variants run with a state directory of their own (the driver's stateDir).
  const workloads: [string, () => Topology, boolean?][] = [
    ...Object.entries(WORKLOADS),
    ['count per key, LMDB store', WORKLOADS['count per key'], true],
    ['tumbling 10 s count, LMDB store', WORKLOADS['tumbling 10 s count'], true],
    ['stream–stream join (1 s), LMDB', WORKLOADS['stream–stream join (1 s)'], true],
  ];
  for (const [name, make, onDisk] of workloads) {
    const dir = onDisk ? fs.mkdtempSync(path.join(os.tmpdir(), 'tide-bench-streams-')) : undefined;
    const rate = run(name, make(), o, dir);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    console.log(
      `${name.padEnd(34)} ${fmt(rate).padStart(12)} records/s  ${((100 * rate) / top).toFixed(0).padStart(3)} % of ceiling`,
    );
  }
}

main();
