import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  JoinWindows,
  PersistentKeyValueStore,
  Serdes,
  StreamsBuilder,
  TimeWindows,
  TopologyTestDriver,
} from '../../../streams';
import { stampedSerde } from '../../../streams/state/persistent';

describe('the persistent (LMDB) key-value store', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-streams-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('puts, gets, deletes and iterates through the serdes, and keeps its data across reopen', async () => {
    const changes: unknown[] = [];
    const s = new PersistentKeyValueStore('s', dir, Serdes.string, Serdes.json<{ n: number }>(), (c) =>
      changes.push(c),
    );
    s.put('a', { n: 1 });
    s.put('b', { n: 2 });
    s.put('a', { n: 3 });
    expect(s.get('a')).toEqual({ n: 3 });
    expect(s.get('zz')).toBeNull();
    expect(s.delete('b')).toEqual({ n: 2 });
    expect(s.get('b')).toBeNull();
    expect([...s.all()]).toEqual([['a', { n: 3 }]]);
    expect(s.size()).toBe(1);
    expect(changes).toHaveLength(4);
    // The serdes' bytes ride along, for the changelog record (changelog.ts) to reuse.
    expect(changes[3]).toEqual({
      store: 's',
      key: 'b',
      value: null,
      keyBytes: Buffer.from('b'),
      valueBytes: null,
    });
    expect(changes[2]).toMatchObject({ keyBytes: Buffer.from('a'), valueBytes: Buffer.from('{"n":3}') });
    await s.flushed();
    s.close();
    const again = new PersistentKeyValueStore('s', dir, Serdes.string, Serdes.json<{ n: number }>());
    expect(again.get('a')).toEqual({ n: 3 });
    again.close();
  });

  it('stamped values carry their timestamp', () => {
    const serde = stampedSerde(Serdes.string);
    expect(serde.deserialize(serde.serialize({ value: 'v', timestamp: 1_700_000_000_123 }))).toEqual({
      value: 'v',
      timestamp: 1_700_000_000_123,
    });
  });

  it('a topology on persistent stores gives the same results, and its state survives a new driver', () => {
    const topology = () => {
      const b = new StreamsBuilder({ applicationId: 'app' });
      b.stream('words', { key: Serdes.string, value: Serdes.string })
        .groupByKey()
        .count({ name: 'counts' })
        .toStream()
        .to('out', { value: Serdes.number });
      return b.build();
    };
    const options = { stateDir: dir, partitions: { words: 2 } };
    const first = new TopologyTestDriver(topology(), options);
    const input = first.inputTopic('words', Serdes.string, Serdes.string);
    for (const w of ['a', 'b', 'a']) input.pipeInput(w, w, 1);
    expect(first.getKeyValueStore('counts').get('a')).toBe(2);
    first.close();
    expect(fs.readdirSync(dir).sort()).toEqual(['0_0', '0_1']);

    const second = new TopologyTestDriver(topology(), options);
    second.inputTopic('words', Serdes.string, Serdes.string).pipeInput('a', 'a', 2);
    expect(second.outputTopic('out', Serdes.string, Serdes.number).readKeyValuesToList()).toEqual([['a', 3]]);
    expect(second.getKeyValueStore('counts').get('b')).toBe(1);
    second.close();
  });

  it('windowed counts and stream–stream joins keep their windows in LMDB across a new driver', () => {
    const str = { key: Serdes.string, value: Serdes.string };
    const topology = () => {
      const b = new StreamsBuilder({ applicationId: 'app' });
      b.stream('clicks', str)
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeWithNoGrace(100))
        .count({ name: 'per-window' })
        .toStream()
        .to('counts', { key: Serdes.windowed(Serdes.string), value: Serdes.number });
      b.stream('left', str)
        .join(b.stream('right', str), (l, r) => `${l}+${r}`, JoinWindows.ofTimeDifferenceWithNoGrace(10), {
          name: 'j',
        })
        .to('joined', { value: Serdes.string });
      return b.build();
    };
    const first = new TopologyTestDriver(topology(), { stateDir: dir });
    first.inputTopic('clicks', Serdes.string, Serdes.string).pipeInput('a', 'x', 10);
    first.inputTopic('clicks', Serdes.string, Serdes.string).pipeInput('a', 'x', 20);
    first.inputTopic('left', Serdes.string, Serdes.string).pipeInput('k', 'L1', 10);
    first.inputTopic('left', Serdes.string, Serdes.string).pipeInput('k', 'L2', 10);
    first.close();
    const stores = fs.readdirSync(path.join(dir, '0_0')).sort();
    expect(stores).toEqual(expect.arrayContaining(['per-window']));
    expect(fs.readdirSync(dir).flatMap((task) => fs.readdirSync(path.join(dir, task)))).toEqual(
      expect.arrayContaining(['j-this-join-store', 'j-other-join-store']),
    );

    const second = new TopologyTestDriver(topology(), { stateDir: dir });
    second.inputTopic('clicks', Serdes.string, Serdes.string).pipeInput('a', 'x', 30);
    const counts = second.outputTopic('counts', Serdes.windowed(Serdes.string), Serdes.number);
    expect(counts.readKeyValuesToList()).toEqual([[{ key: 'a', window: { start: 0, end: 100 } }, 3]]);
    expect(second.getWindowStore('per-window').fetch('a', 0)).toBe(3);
    // Both left values seen at 10 come back from the join store (a list, through the string serde).
    second.inputTopic('right', Serdes.string, Serdes.string).pipeInput('k', 'R1', 15);
    expect(
      second
        .outputTopic('joined', Serdes.string, Serdes.string)
        .readKeyValuesToList()
        .map((kv) => kv[1]),
    ).toEqual(['L1+R1', 'L2+R1']);
    second.close();
  });
});
