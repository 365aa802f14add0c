import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PersistentKeyValueStore, Serdes, StreamsBuilder, TopologyTestDriver } from '../../../streams';
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
    expect(changes[3]).toEqual({ store: 's', key: 'b', value: null });
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
});
