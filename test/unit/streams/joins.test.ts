import { JoinWindows, Serdes, StreamsBuilder, StreamsError, TopologyTestDriver } from '../../../streams';

const str = { key: Serdes.string, value: Serdes.string };

function streamStream(
  kind: 'join' | 'leftJoin' | 'outerJoin',
  windows = JoinWindows.ofTimeDifferenceWithNoGrace(10),
) {
  const b = new StreamsBuilder({ applicationId: 'app' });
  const left = b.stream('left', str);
  const right = b.stream('right', str);
  const joiner = (l: string | null, r: string | null) => `${l ?? 'null'}+${r ?? 'null'}`;
  if (kind === 'join') left.join(right, joiner, windows, { name: 'j' }).to('out', { value: Serdes.string });
  else if (kind === 'leftJoin')
    left.leftJoin(right, joiner, windows, { name: 'j' }).to('out', { value: Serdes.string });
  else left.outerJoin(right, joiner, windows, { name: 'j' }).to('out', { value: Serdes.string });
  const driver = new TopologyTestDriver(b.build());
  const l = driver.inputTopic('left', Serdes.string, Serdes.string);
  const r = driver.inputTopic('right', Serdes.string, Serdes.string);
  const out = driver.outputTopic('out', Serdes.string, Serdes.string);
  const read = () => out.readRecordsToList().map((x) => `${x.key}:${x.value}@${x.timestampMs}`);
  return { driver, l, r, read };
}

describe('stream–stream joins', () => {
  it('inner: records join within the window, with the later timestamp', () => {
    const { l, r, read } = streamStream('join');
    l.pipeInput('k', 'L1', 10);
    expect(read()).toEqual([]);
    r.pipeInput('k', 'R1', 15);
    expect(read()).toEqual(['k:L1+R1@15']);
    r.pipeInput('k', 'R2', 30); // L1's window is [0, 20]
    expect(read()).toEqual([]);
    l.pipeInput('k', 'L2', 25); // joins R1 (15) and R2 (30)
    expect(read()).toEqual(['k:L2+R1@25', 'k:L2+R2@30']);
    r.pipeInput('other', 'R3', 26);
    expect(read()).toEqual([]);
  });

  it('before/after make the window asymmetric', () => {
    const { l, r, read } = streamStream('join', JoinWindows.ofTimeDifferenceAndGrace(0, 100).after(5));
    l.pipeInput('k', 'L', 10);
    r.pipeInput('k', 'early', 9); // before L: outside (before = 0)
    r.pipeInput('k', 'late', 15); // 5 after L: inside
    r.pipeInput('k', 'later', 16);
    expect(read()).toEqual(['k:L+late@15']);
  });

  it('left: an unmatched left record joins null only once its window has closed', () => {
    const { l, r, read } = streamStream('leftJoin');
    l.pipeInput('k', 'L1', 10);
    r.pipeInput('k', 'R1', 12);
    expect(read()).toEqual(['k:L1+R1@12']);
    l.pipeInput('m', 'L2', 20); // no match yet: nothing (a match may come until 30)
    r.pipeInput('x', 'R2', 30);
    expect(read()).toEqual([]);
    r.pipeInput('x', 'R3', 31); // stream time 31 > 20 + 10: L2's window closed
    expect(read()).toEqual(['m:L2+null@20']);
    r.pipeInput('z', 'R4', 100); // right records never produce output in a left join; L1 had a match
    expect(read()).toEqual([]);
  });

  it('left: a match arriving within the window prevents the null result', () => {
    const { l, r, read } = streamStream('leftJoin');
    l.pipeInput('k', 'L1', 10);
    r.pipeInput('k', 'R1', 19);
    r.pipeInput('q', 'Rq', 100);
    expect(read()).toEqual(['k:L1+R1@19']);
  });

  it('outer: unmatched records of either side join null after their window', () => {
    const { l, r, read } = streamStream('outerJoin');
    l.pipeInput('a', 'La', 10);
    r.pipeInput('b', 'Rb', 12);
    r.pipeInput('a', 'Ra', 15);
    expect(read()).toEqual(['a:La+Ra@15']);
    l.pipeInput('z', 'Lz', 40);
    expect(read()).toEqual(['b:null+Rb@12']);
  });

  it('drops and counts records whose join window closed', () => {
    const { driver, l, r, read } = streamStream('join');
    r.pipeInput('k', 'R1', 50);
    l.pipeInput('k', 'L-late', 30); // 30 + 10 < 50
    expect(read()).toEqual([]);
    expect(driver.metrics().droppedLateRecords).toBe(1);
  });
});

describe('stream–table joins', () => {
  function build(kind: 'join' | 'leftJoin') {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const customers = b.table('customers', { ...str, name: 'customers' });
    const orders = b.stream('orders', str);
    if (kind === 'join')
      orders.join(customers, (o, c) => `${o}/${c}`, { name: 'enrich' }).to('out', { value: Serdes.string });
    else
      orders
        .leftJoin(customers, (o, c: string | null) => `${o}/${c ?? 'unknown'}`, { name: 'enrich' })
        .to('out', { value: Serdes.string });
    const driver = new TopologyTestDriver(b.build(), { partitions: { orders: 2, customers: 2 } });
    return {
      driver,
      orders: driver.inputTopic('orders', Serdes.string, Serdes.string),
      customers: driver.inputTopic('customers', Serdes.string, Serdes.string),
      read: () => driver.outputTopic('out', Serdes.string, Serdes.string).readKeyValuesToList(),
    };
  }

  it('inner: looks up the table value at the time of the stream record; table updates emit nothing', () => {
    const { orders, customers, read } = build('join');
    orders.pipeInput('c1', 'o1', 1); // no customer yet: dropped
    customers.pipeInput('c1', 'Alice', 2);
    expect(read()).toEqual([]);
    orders.pipeInput('c1', 'o2', 3);
    customers.pipeInput('c1', 'Alice B.', 4);
    orders.pipeInput('c1', 'o3', 5);
    customers.pipeInput('c1', null, 6); // deleted
    orders.pipeInput('c1', 'o4', 7);
    expect(read()).toEqual([
      ['c1', 'o2/Alice'],
      ['c1', 'o3/Alice B.'],
    ]);
  });

  it('left: the joiner gets null when the table has no value', () => {
    const { orders, customers, read } = build('leftJoin');
    orders.pipeInput('c1', 'o1', 1);
    customers.pipeInput('c1', 'Alice', 2);
    orders.pipeInput('c1', 'o2', 3);
    orders.pipeInput('c1', null, 4); // a record without a value is dropped
    expect(read()).toEqual([
      ['c1', 'o1/unknown'],
      ['c1', 'o2/Alice'],
    ]);
  });

  it('refuses topics with different partition counts, naming them and their counts', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const customers = b.table('customers', { ...str, name: 'customers' });
    b.stream('orders', str)
      .join(customers, (o, c) => o + c, { name: 'enrich' })
      .to('out', { value: Serdes.string });
    const topology = b.build();
    let err: unknown;
    try {
      new TopologyTestDriver(topology, { partitions: { orders: 3, customers: 2 } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StreamsError);
    expect((err as StreamsError).kind).toBe('CO_PARTITIONING');
    expect((err as Error).message).toContain('join "enrich"');
    expect((err as Error).message).toContain('customers (2 partitions), orders (3 partitions)');
  });

  it('a re-keyed stream is repartitioned to the table’s partition count', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const customers = b.table('customers', { ...str, name: 'customers' });
    b.stream('orders', str)
      .selectKey((_id, customer) => customer)
      .join(customers, (_c, name) => name, { name: 'enrich' })
      .to('out', { key: Serdes.string, value: Serdes.string });
    const topology = b.build();
    expect([...topology.internalTopics.keys()]).toEqual(['app-enrich-repartition']);
    const driver = new TopologyTestDriver(topology, { partitions: { orders: 3, customers: 2 } });
    expect(driver.partitionsOf('app-enrich-repartition')).toBe(2);
    driver.inputTopic('customers', Serdes.string, Serdes.string).pipeInput('c7', 'Grace', 1);
    const orders = driver.inputTopic('orders', Serdes.string, Serdes.string);
    for (let i = 0; i < 6; i++) orders.pipeInput(`order-${i}`, 'c7', 2 + i);
    expect(driver.outputTopic('out', Serdes.string, Serdes.string).readKeyValuesToList()).toEqual(
      Array.from({ length: 6 }, () => ['c7', 'Grace']),
    );
  });
});

describe('table–table joins', () => {
  function build(kind: 'join' | 'leftJoin' | 'outerJoin') {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const left = b.table('lt', { ...str, name: 'lt' });
    const right = b.table('rt', { ...str, name: 'rt' });
    const joiner = (l: string | null, r: string | null) => `${l ?? 'null'}+${r ?? 'null'}`;
    const joined =
      kind === 'join'
        ? left.join(right, joiner, { name: 'j' })
        : kind === 'leftJoin'
          ? left.leftJoin(right, joiner, { name: 'j' })
          : left.outerJoin(right, joiner, { name: 'j' });
    joined.toStream().to('out', { value: Serdes.string });
    const driver = new TopologyTestDriver(b.build());
    return {
      l: driver.inputTopic('lt', Serdes.string, Serdes.string),
      r: driver.inputTopic('rt', Serdes.string, Serdes.string),
      read: () =>
        driver
          .outputTopic('out', Serdes.string, Serdes.string)
          .readKeyValuesToList()
          .map((kv) => kv[1]),
    };
  }

  it('inner: a result needs both sides; losing one is a delete', () => {
    const { l, r, read } = build('join');
    l.pipeInput('k', 'a', 1);
    expect(read()).toEqual([]);
    r.pipeInput('k', 'x', 2);
    l.pipeInput('k', 'b', 3);
    l.pipeInput('k', null, 4);
    r.pipeInput('k', 'y', 5); // left is gone: nothing
    expect(read()).toEqual(['a+x', 'b+x', null]);
  });

  it('left: every left value, with null while the right has none', () => {
    const { l, r, read } = build('leftJoin');
    l.pipeInput('k', 'a', 1);
    r.pipeInput('k', 'x', 2);
    r.pipeInput('k', null, 3);
    l.pipeInput('k', null, 4);
    r.pipeInput('k', 'z', 5);
    expect(read()).toEqual(['a+null', 'a+x', 'a+null', null]);
  });

  it('outer: either side; a delete only when both are gone', () => {
    const { l, r, read } = build('outerJoin');
    r.pipeInput('k', 'x', 1);
    l.pipeInput('k', 'a', 2);
    l.pipeInput('k', null, 3);
    r.pipeInput('k', null, 4);
    expect(read()).toEqual(['null+x', 'a+x', 'null+x', null]);
  });
});

describe('stream–globalTable joins', () => {
  it('joins through a key selector on any partition, without co-partitioning', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const products = b.globalTable('products', { ...str, name: 'products' });
    const orders = b.stream('orders', {
      key: Serdes.string,
      value: Serdes.json<{ product: string; qty: number }>(),
    });
    orders
      .join(
        products,
        (_id, o) => o.product,
        (o, name) => `${o.qty} x ${name}`,
        { name: 'with-product' },
      )
      .to('out', { value: Serdes.string });
    orders
      .leftJoin(
        products,
        (_id, o) => o.product,
        (o, name: string | null) => `${o.qty} x ${name ?? '?'}`,
        {
          name: 'with-product-left',
        },
      )
      .to('out-left', { value: Serdes.string });
    const driver = new TopologyTestDriver(b.build(), { partitions: { orders: 3, products: 2 } });
    const p = driver.inputTopic('products', Serdes.string, Serdes.string);
    p.pipeInput('p1', 'pen', 1);
    p.pipeInput('p2', 'ink', 1);
    const o = driver.inputTopic('orders', Serdes.string, Serdes.json<{ product: string; qty: number }>());
    for (let i = 0; i < 6; i++)
      o.pipeInput(`o${i}`, { product: i % 3 === 2 ? 'p9' : `p${(i % 2) + 1}`, qty: i }, 2);
    const read = (t: string) =>
      driver
        .outputTopic(t, Serdes.string, Serdes.string)
        .readKeyValuesToList()
        .sort((a, c) => (a[0]! < c[0]! ? -1 : 1));
    expect(read('out')).toEqual([
      ['o0', '0 x pen'],
      ['o1', '1 x ink'],
      ['o3', '3 x ink'],
      ['o4', '4 x pen'],
    ]);
    expect(read('out-left')).toEqual([
      ['o0', '0 x pen'],
      ['o1', '1 x ink'],
      ['o2', '2 x ?'],
      ['o3', '3 x ink'],
      ['o4', '4 x pen'],
      ['o5', '5 x ?'],
    ]);
    expect(driver.getKeyValueStore('products').get('p2')).toBe('ink');
  });
});

describe('stream–stream joins against a reference model', () => {
  function rnd(seed: number) {
    let a = seed >>> 0;
    return () => {
      a = (a * 1664525 + 1013904223) >>> 0;
      return a / 4294967296;
    };
  }

  it.each([1, 7, 42])('seed %i: inner, left and outer results equal a brute-force join', (seed) => {
    const r = rnd(seed);
    type Rec = { side: 'L' | 'R'; key: string; ts: number; id: string };
    const recs: Rec[] = [];
    let clock = 100;
    for (let i = 0; i < 200; i++) {
      clock += Math.floor(r() * 6);
      recs.push({
        side: r() < 0.5 ? 'L' : 'R',
        key: `k${Math.floor(r() * 4)}`,
        ts: clock - Math.floor(r() * 8),
        id: `#${i}`,
      });
    }
    const d = 10;
    const grace = 10; // disorder stays below it: nothing is late
    const pairs: string[] = [];
    for (const l of recs.filter((x) => x.side === 'L')) {
      for (const rr of recs.filter((x) => x.side === 'R')) {
        if (l.key === rr.key && Math.abs(l.ts - rr.ts) <= d) pairs.push(`${l.id}+${rr.id}`);
      }
    }
    const matched = new Set(pairs.flatMap((p) => p.split('+')));
    const lonelyLeft = recs.filter((x) => x.side === 'L' && !matched.has(x.id)).map((x) => `${x.id}+null`);
    const lonelyRight = recs.filter((x) => x.side === 'R' && !matched.has(x.id)).map((x) => `null+${x.id}`);

    for (const kind of ['join', 'leftJoin', 'outerJoin'] as const) {
      const {
        driver,
        l,
        r: right,
        read,
      } = streamStream(kind, JoinWindows.ofTimeDifferenceAndGrace(d, grace));
      for (const x of recs) (x.side === 'L' ? l : right).pipeInput(x.key, x.id, x.ts);
      right.pipeInput('flush', 'end', clock + 1000); // closes every window
      expect(driver.metrics().droppedLateRecords).toBe(0);
      const got = read()
        .map((s) => s.slice(s.indexOf(':') + 1, s.indexOf('@')))
        .sort();
      const expected =
        kind === 'join'
          ? pairs
          : kind === 'leftJoin'
            ? [...pairs, ...lonelyLeft]
            : [...pairs, ...lonelyLeft, ...lonelyRight];
      expect(got).toEqual([...expected].sort());
    }
  });
});
