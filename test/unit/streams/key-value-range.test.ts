/**
 * range() and prefixScan() of the key-value stores — in memory, LMDB, and either behind the record
 * cache — in the order of the key serde's bytes, as Kafka's: the same cases against each.
 */
import * as path from 'node:path';
import { Serdes, StreamsBuilder, Stores, TopologyTestDriver, type ProcessorContext } from '../../../streams';
import type { Serde } from '../../../streams';
import { InMemoryKeyValueStore } from '../../../streams/state/memory';
import { PersistentKeyValueStore } from '../../../streams/state/persistent';
import { CachingKeyValueStore } from '../../../streams/state/caching-key-value';
import { RecordCache } from '../../../streams/state/record-cache';
import { prefixByteRange } from '../../../streams/state/key-range';
import type { KeyValueStore } from '../../../streams/state/stores';
import { storeFolder } from './store-fixtures';

const folder = storeFolder('tide-kv-range-');

type Make = <K>(keySerde: Serde<K>) => KeyValueStore<K, number>;

const kinds: [string, Make][] = [
  ['in memory', (keySerde) => new InMemoryKeyValueStore('s', undefined, keySerde)],
  [
    'LMDB',
    (keySerde) =>
      folder.track(new PersistentKeyValueStore('s', path.join(folder.dir, 's'), keySerde, Serdes.number)),
  ],
  [
    'in memory, cached',
    (keySerde) =>
      new CachingKeyValueStore(
        new InMemoryKeyValueStore('s', undefined, keySerde),
        new RecordCache(),
        'ns',
        keySerde,
      ),
  ],
  [
    'LMDB, cached',
    (keySerde) =>
      new CachingKeyValueStore(
        folder.track(new PersistentKeyValueStore('s', path.join(folder.dir, 's'), keySerde, Serdes.number)),
        new RecordCache(),
        'ns',
        keySerde,
      ),
  ],
];

const keysOf = <K>(it: Iterable<[K, number]>): K[] => [...it].map(([k]) => k);

describe.each(kinds)('%s', (_kind, make) => {
  it('ranges over keys in byte order, both bounds included, null bounds open', () => {
    const s = make(Serdes.string);
    for (const [i, k] of ['b', 'abc', 'a', 'ab', 'c', 'é', 'B'].entries()) s.put(k, i);
    expect(keysOf(s.range(null, null))).toEqual(['B', 'a', 'ab', 'abc', 'b', 'c', 'é']);
    expect(keysOf(s.range('ab', 'b'))).toEqual(['ab', 'abc', 'b']);
    expect(keysOf(s.range('aa', 'az'))).toEqual(['ab', 'abc']);
    expect(keysOf(s.range(null, 'a'))).toEqual(['B', 'a']);
    expect(keysOf(s.range('c', null))).toEqual(['c', 'é']);
    expect(keysOf(s.range('x', 'y'))).toEqual([]);
    expect([...s.range('a', 'a')]).toEqual([['a', 2]]);
  });

  it('reverseRange and reverseAll go from the highest key bytes down', () => {
    const s = make(Serdes.string);
    for (const [i, k] of ['b', 'a', 'd', 'c'].entries()) s.put(k, i);
    expect(keysOf(s.reverseRange('b', 'c'))).toEqual(['c', 'b']);
    expect(keysOf(s.reverseRange(null, 'b'))).toEqual(['b', 'a']);
    expect(keysOf(s.reverseAll())).toEqual(['d', 'c', 'b', 'a']);
  });

  it('scans a prefix, and follows writes and deletes made after a first scan', () => {
    const s = make(Serdes.string);
    for (const [i, k] of ['user:1', 'user:10', 'user:2', 'userx', 'order:1'].entries()) s.put(k, i);
    expect(keysOf(s.prefixScan('user:', Serdes.string))).toEqual(['user:1', 'user:10', 'user:2']);
    s.put('user:0', 9);
    s.delete('user:10');
    s.put('user:2', 7);
    expect([...s.prefixScan('user:', Serdes.string)]).toEqual([
      ['user:0', 9],
      ['user:1', 0],
      ['user:2', 7],
    ]);
    expect(keysOf(s.prefixScan('nothing', Serdes.string))).toEqual([]);
  });

  it('scans prefixes that end in 0xff bytes', () => {
    const s = make(Serdes.bytes);
    const keys = [[0xfe], [0xff], [0xff, 0x00], [0xff, 0xff], [0xff, 0xff, 0x01], [0x01, 0xff], [0x02]].map(
      (b) => Buffer.from(b),
    );
    for (const [i, k] of keys.entries()) s.put(k, i);
    const hex = (it: Iterable<[Buffer, number]>) => keysOf(it).map((k) => k.toString('hex'));
    expect(hex(s.prefixScan(Buffer.from([0xff]), Serdes.bytes))).toEqual(['ff', 'ff00', 'ffff', 'ffff01']);
    expect(hex(s.prefixScan(Buffer.from([0xff, 0xff]), Serdes.bytes))).toEqual(['ffff', 'ffff01']);
    expect(hex(s.prefixScan(Buffer.from([0x01]), Serdes.bytes))).toEqual(['01ff']);
  });

  it('reads the range when called: writes while iterating are not seen', () => {
    const s = make(Serdes.string);
    s.put('a', 1);
    s.put('c', 3);
    const seen: string[] = [];
    for (const [k] of s.range(null, null)) {
      seen.push(k);
      s.put('b', 2);
    }
    expect(seen).toEqual(['a', 'c']);
    expect(keysOf(s.range(null, null))).toEqual(['a', 'b', 'c']);
  });
});

describe('behind the record cache', () => {
  it('merges writes not flushed yet with the store: new keys, updates and deletes', () => {
    const inner = new InMemoryKeyValueStore<string, number>('s', undefined, Serdes.string);
    inner.put('a', 1);
    inner.put('b', 2);
    inner.put('d', 4);
    const cached = new CachingKeyValueStore(inner, new RecordCache(), 'ns', Serdes.string);
    cached.put('c', 3);
    cached.put('b', 20);
    cached.delete('d');
    expect([...cached.range(null, null)]).toEqual([
      ['a', 1],
      ['b', 20],
      ['c', 3],
    ]);
    expect(keysOf(inner.range(null, null))).toEqual(['a', 'b', 'd']);
    cached.flush();
    expect([...inner.range(null, null)]).toEqual([...cached.range(null, null)]);
  });
});

it('a store without a key serde refuses a range, naming the store', () => {
  const s = new InMemoryKeyValueStore<string, number>('buffer');
  s.put('a', 1);
  expect(() => s.range(null, null)).toThrow(/store buffer has no key serde/);
});

it('prefixByteRange: the bytes above every extension of the prefix', () => {
  expect(prefixByteRange(Buffer.from([0x61, 0x62]))).toEqual({
    from: Buffer.from([0x61, 0x62]),
    until: Buffer.from([0x61, 0x63]),
  });
  expect(prefixByteRange(Buffer.from([0x61, 0xff, 0xff]))).toEqual({
    from: Buffer.from([0x61, 0xff, 0xff]),
    until: Buffer.from([0x62]),
  });
  expect(prefixByteRange(Buffer.from([0xff]))).toEqual({ from: Buffer.from([0xff]), until: null });
});

it('a processor reads a range of its store; the driver shows the range across tasks', () => {
  const b = new StreamsBuilder({ applicationId: 'app' });
  b.stream('events', { key: Serdes.string, value: Serdes.number })
    .process<string, string>(
      () => {
        let ctx!: ProcessorContext;
        let store!: KeyValueStore<string, number>;
        return {
          init(c) {
            ctx = c;
            store = c.getStateStore('latest');
          },
          process(r) {
            store.put(r.key, r.value);
            // The keys sharing this key's first letter, in order.
            const group = [...store.prefixScan(r.key[0]!, Serdes.string)].map(([k, v]) => `${k}=${v}`);
            ctx.forward({ key: r.key, value: group.join(','), timestamp: r.timestamp, headers: [] });
          },
        };
      },
      { name: 'group', stores: [Stores.keyValue('latest', { key: Serdes.string, value: Serdes.number })] },
    )
    .to('groups', { key: Serdes.string, value: Serdes.string });
  const driver = new TopologyTestDriver(b.build(), { partitions: { events: 2 } });
  const input = driver.inputTopic('events', Serdes.string, Serdes.number);
  input.pipeInput('ab', 1, 0);
  input.pipeInput('aa', 2, 1);
  input.pipeInput('ac', 3, 2);
  const out = driver.outputTopic('groups', Serdes.string, Serdes.string).readKeyValuesToList();
  // Each task scans its own store: ab is in partition 0, aa and ac in partition 1.
  expect(out).toEqual([
    ['ab', 'ab=1'],
    ['aa', 'aa=2'],
    ['ac', 'aa=2,ac=3'],
  ]);
  const store = driver.getKeyValueStore<string, number>('latest');
  expect(store.range('aa', 'ab')).toEqual([
    ['aa', 2],
    ['ab', 1],
  ]);
  expect(store.prefixScan('a', Serdes.string)).toEqual([
    ['aa', 2],
    ['ab', 1],
    ['ac', 3],
  ]);
  driver.close();
});
