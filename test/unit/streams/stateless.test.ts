import {
  Serdes,
  StreamsBuilder,
  StreamsError,
  TimeWindows,
  TopologyTestDriver,
  type ProcessorContext,
  type Serde,
} from '../../../streams';
import { Tide, partitionForKey } from '../../../client';

interface Order {
  id: string;
  customer: string;
  amount: number;
}

const orders = { key: Serdes.string, value: Serdes.json<Order>() };

function order(id: string, customer: string, amount: number): Order {
  return { id, customer, amount };
}

describe('stateless operators', () => {
  it('filter, filterNot, mapValues, peek and to keep order and timestamps', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const seen: string[] = [];
    const s = b.stream('orders', orders).peek((k) => seen.push(k));
    s.filter((_k, v) => v.amount >= 10)
      .mapValues((v) => v.amount * 2)
      .to('big', { key: Serdes.string, value: Serdes.number });
    s.filterNot((_k, v) => v.amount >= 10).to('small');
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('orders', Serdes.string, Serdes.json<Order>());
    input.pipeInput('a', order('1', 'c1', 5), 100);
    input.pipeInput('b', order('2', 'c2', 50), 200);
    input.pipeInput('c', order('3', 'c1', 10), 300);
    const big = driver.outputTopic('big', Serdes.string, Serdes.number).readRecordsToList();
    expect(big.map((r) => [r.key, r.value, r.timestampMs])).toEqual([
      ['b', 100, 200],
      ['c', 20, 300],
    ]);
    expect(driver.outputTopic('small', Serdes.string, Serdes.json<Order>()).readKeyValuesToList()).toEqual([
      ['a', order('1', 'c1', 5)],
    ]);
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('map, selectKey, flatMap and flatMapValues', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const s = b.stream('orders', orders);
    s.map((_k, v) => [v.customer, v.amount] as const).to('by-customer', {
      key: Serdes.string,
      value: Serdes.number,
    });
    s.selectKey((_k, v) => v.id).to('by-id', { key: Serdes.string });
    s.flatMap((k, v) => [
      [k + '-x', v.amount],
      [k + '-y', -v.amount],
    ]).to('pairs', { key: Serdes.string, value: Serdes.number });
    s.flatMapValues((v) => v.id.split('')).to('chars', { value: Serdes.string });
    const driver = new TopologyTestDriver(b.build());
    driver.inputTopic('orders', Serdes.string, Serdes.json<Order>()).pipeInput('k', order('12', 'c9', 7), 1);
    expect(driver.outputTopic('by-customer', Serdes.string, Serdes.number).readKeyValuesToList()).toEqual([
      ['c9', 7],
    ]);
    expect(driver.outputTopic('by-id', Serdes.string, Serdes.json<Order>()).readKeyValuesToList()).toEqual([
      ['12', order('12', 'c9', 7)],
    ]);
    expect(driver.outputTopic('pairs', Serdes.string, Serdes.number).readKeyValuesToList()).toEqual([
      ['k-x', 7],
      ['k-y', -7],
    ]);
    expect(driver.outputTopic('chars', Serdes.string, Serdes.string).readKeyValuesToList()).toEqual([
      ['k', '1'],
      ['k', '2'],
    ]);
  });

  it('foreach sees every record; merge interleaves both streams in processing order', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const a = b.stream('a', { key: Serdes.string, value: Serdes.number });
    const c = b.stream('c', { key: Serdes.string, value: Serdes.number });
    const got: [string, number][] = [];
    a.merge(c).foreach((k, v) => got.push([k, v]));
    const driver = new TopologyTestDriver(b.build());
    driver.inputTopic('a', Serdes.string, Serdes.number).pipeInput('x', 1, 10);
    driver.inputTopic('c', Serdes.string, Serdes.number).pipeInput('y', 2, 20);
    driver.inputTopic('a', Serdes.string, Serdes.number).pipeInput('z', 3, 30);
    expect(got).toEqual([
      ['x', 1],
      ['y', 2],
      ['z', 3],
    ]);
  });

  it('split routes each record to the first matching branch, the rest to the default branch', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const branches = b
      .stream('n', { key: Serdes.string, value: Serdes.number })
      .split({ name: 'sign' })
      .branch((_k, v) => v < 0, { name: 'negative' })
      .branch((_k, v) => v === 0, { name: 'zero' })
      .defaultBranch({ name: 'positive' });
    expect(Object.keys(branches).sort()).toEqual(['sign-negative', 'sign-positive', 'sign-zero']);
    branches['sign-negative'].to('neg');
    branches['sign-zero'].to('zero');
    branches['sign-positive'].to('pos');
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('n', Serdes.string, Serdes.number);
    for (const v of [3, -1, 0, -5, 8]) input.pipeInput('k', v, 1);
    const read = (t: string) =>
      driver
        .outputTopic(t, Serdes.string, Serdes.number)
        .readKeyValuesToList()
        .map((kv) => kv[1]);
    expect(read('neg')).toEqual([-1, -5]);
    expect(read('zero')).toEqual([0]);
    expect(read('pos')).toEqual([3, 8]);
  });

  it('to() partitions by murmur2 of the key bytes, or by a custom partitioner', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const s = b.stream('in', { key: Serdes.string, value: Serdes.number });
    s.to('out');
    s.to('out-custom', { partitioner: (_k, v, n) => v % n });
    const driver = new TopologyTestDriver(b.build(), { partitions: { out: 4, 'out-custom': 4 } });
    const input = driver.inputTopic('in', Serdes.string, Serdes.number);
    for (let i = 0; i < 20; i++) input.pipeInput(`key-${i}`, i, i);
    const out = driver.outputTopic('out', Serdes.string, Serdes.number).readRecordsToList();
    for (const r of out) expect(r.partition).toBe(partitionForKey(Buffer.from(r.key!), 4));
    expect(new Set(out.map((r) => r.partition)).size).toBeGreaterThan(1);
    const custom = driver.outputTopic('out-custom', Serdes.string, Serdes.number).readRecordsToList();
    for (const r of custom) expect(r.partition).toBe(r.value! % 4);
  });

  it('refuses a missing serde at build time, naming the topic', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('in', { key: Serdes.string, value: Serdes.number })
      .mapValues((v) => ({ v }))
      .to('out');
    expect(() => b.build()).toThrow(/the value written to out has no serde/);
  });

  it('tide.streams() makes a builder; exactlyOnce is accepted, an unknown guarantee is refused', () => {
    const tide = new Tide({ bootstrap: ['127.0.0.1:1'] });
    try {
      expect(tide.streams({ applicationId: 'orders-app' })).toBeInstanceOf(StreamsBuilder);
      const eos = tide.streams({ applicationId: 'orders-app', processingGuarantee: 'exactlyOnce' });
      expect(eos.config.processingGuarantee).toBe('exactlyOnce');
      expect(() =>
        tide.streams({
          applicationId: 'orders-app',
          processingGuarantee: 'exactly_once' as unknown as 'exactlyOnce',
        }),
      ).toThrow(/processingGuarantee must be 'atLeastOnce' or 'exactlyOnce'/);
      expect(() => tide.streams({ applicationId: 'bad id' })).toThrow(StreamsError);
      expect(() => tide.streams({ applicationId: 'bad id' })).toThrow(/applicationId/);
    } finally {
      void tide.close();
    }
  });
});

describe('sinks reuse the key bytes a record was read with', () => {
  // 0xff is not UTF-8: the string serde reads it as U+FFFD, which serializes to ef bf bd. Output
  // bytes ff show the sink wrote the bytes it read; ef bf bd show it serialized the key again.
  const notUtf8 = Buffer.from([0xff]);
  const replaced = Buffer.from('\ufffd', 'utf8');

  function run(build: (b: StreamsBuilder) => void): Buffer[] {
    const b = new StreamsBuilder({ applicationId: 'app' });
    build(b);
    const driver = new TopologyTestDriver(b.build());
    driver.inputTopic('in', Serdes.bytes, Serdes.number).pipeInput(notUtf8, 1, 10);
    const out = driver.outputTopic('out', Serdes.bytes, Serdes.number).readKeyValuesToList();
    driver.close();
    return out.map(([k]) => k!);
  }

  it('writes the source bytes when the key and its serde are unchanged', () => {
    const keys = run((b) =>
      b
        .stream('in', { key: Serdes.string, value: Serdes.number })
        .filter(() => true)
        .mapValues((v) => v + 1)
        .to('out', { value: Serdes.number }),
    );
    expect(keys).toEqual([notUtf8]);
  });

  it('writes the inner key of a windowed key from the source bytes', () => {
    const keys = run((b) =>
      b
        .stream('in', { key: Serdes.string, value: Serdes.number })
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeWithNoGrace(100))
        .count({ name: 'counts' })
        .toStream()
        .to('out', { key: Serdes.windowed(Serdes.string), value: Serdes.number }),
    );
    expect(keys).toHaveLength(1);
    expect(keys[0].subarray(0, 1)).toEqual(notUtf8);
    expect(Serdes.windowed(Serdes.bytes).deserialize(keys[0]).window).toEqual({ start: 0, end: 100 });
  });

  it('serializes a key that another serde is to write', () => {
    const other: Serde<string> = {
      name: 'other-string',
      serialize: Serdes.string.serialize,
      deserialize: Serdes.string.deserialize,
    };
    const keys = run((b) =>
      b.stream('in', { key: Serdes.string, value: Serdes.number }).to('out', { key: other }),
    );
    expect(keys).toEqual([replaced]);
  });

  it('serializes a key changed by selectKey, or in place by a processor', () => {
    const selected = run((b) =>
      b
        .stream('in', { key: Serdes.string, value: Serdes.number })
        .selectKey((k) => k + '!')
        .to('out', { key: Serdes.string, value: Serdes.number }),
    );
    expect(selected).toEqual([Buffer.from('\ufffd!', 'utf8')]);
    const mutated = run((b) =>
      b
        .stream('in', { key: Serdes.string, value: Serdes.number })
        .process<string, number>(
          () => {
            let ctx!: ProcessorContext;
            return {
              init: (c) => (ctx = c),
              process: (r) => {
                r.key = 'x';
                ctx.forward(r);
              },
            };
          },
          { name: 'rekey' },
        )
        .to('out', { key: Serdes.string, value: Serdes.number }),
    );
    expect(mutated).toEqual([Buffer.from('x')]);
  });
});
