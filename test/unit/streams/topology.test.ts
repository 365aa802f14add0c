import {
  JoinWindows,
  Serdes,
  StreamsBuilder,
  StreamsError,
  TimeWindows,
  TopologyTestDriver,
} from '../../../streams';

const str = { key: Serdes.string, value: Serdes.string };

function buildError(f: (b: StreamsBuilder) => void): StreamsError {
  const b = new StreamsBuilder({ applicationId: 'app' });
  f(b);
  try {
    b.build();
  } catch (e) {
    if (e instanceof StreamsError) return e;
    throw e;
  }
  throw new Error('build() did not fail');
}

describe('topology checks at build time', () => {
  it('an unnamed stateful node fails the build, saying where', () => {
    const err = buildError((b) => {
      // @ts-expect-error -- the name is required by the types too
      b.stream('words', str).groupByKey().count({});
    });
    expect(err.kind).toBe('TOPOLOGY');
    expect(err.message).toMatch(/count\(\) after node "source-words" is stateful and has no name/);
  });

  it('reports every problem at once: unnamed joins and windows, duplicate names, a topic read twice', () => {
    const err = buildError((b) => {
      const a = b.stream('a', str);
      const c = b.stream('c', str);
      a.join(c, (x, y) => x + y, JoinWindows.ofTimeDifferenceWithNoGrace(5), { name: '' });
      a.groupByKey()
        .windowedBy(TimeWindows.ofSizeWithNoGrace(5))
        .count(undefined as never);
      a.groupByKey().count({ name: 'dup' });
      c.groupByKey().count({ name: 'dup' });
      b.stream('a', str);
    });
    expect(err.message).toMatch(
      /stream-stream-inner-join\(\) after node "source-a" is stateful and has no name/,
    );
    expect(err.message).toMatch(/windowed-count\(\) after node "source-a" is stateful and has no name/);
    expect(err.message).toMatch(/two stores are named "dup"/);
    expect(err.message).toMatch(/topic "a" is read twice/);
    expect(err.message).toMatch(/has 4 problem\(s\)/);
  });

  it('a name with characters unfit for a topic is refused', () => {
    const err = buildError((b) => b.stream('a', str).groupByKey().count({ name: 'my counts' }));
    expect(err.message).toMatch(/may use only letters, digits/);
  });

  it('an empty topology and a second build() are refused', () => {
    expect(() => new StreamsBuilder({ applicationId: 'app' }).build()).toThrow(/empty/);
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('a', str).to('b');
    b.build();
    expect(() => b.build()).toThrow(/already/);
  });

  it('a missing source topic is refused at start', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('a', str).to('b');
    const t = b.build();
    expect(() => t.resolvePartitions(() => undefined)).toThrow(/source topic "a" does not exist/);
  });

  it('an explicit repartition fixes a co-partitioning mismatch', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const customers = b.table('customers', { ...str, name: 'customers' });
    b.stream('orders', str)
      .repartition({ name: 'orders-by-customer', partitions: 2 })
      .join(customers, (o, c) => `${o}/${c}`, { name: 'enrich' })
      .to('out', { value: Serdes.string });
    const driver = new TopologyTestDriver(b.build(), { partitions: { orders: 3, customers: 2 } });
    expect(driver.partitionsOf('app-orders-by-customer-repartition')).toBe(2);
    driver.inputTopic('customers', Serdes.string, Serdes.string).pipeInput('c', 'Cleo', 1);
    driver.inputTopic('orders', Serdes.string, Serdes.string).pipeInput('c', 'o1', 2);
    expect(driver.outputTopic('out', Serdes.string, Serdes.string).readKeyValuesToList()).toEqual([
      ['c', 'o1/Cleo'],
    ]);
  });

  it('explicit repartition counts that disagree are a co-partitioning error', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const l = b.stream('l', str).repartition({ name: 'l2', partitions: 2 });
    const r = b.stream('r', str).repartition({ name: 'r4', partitions: 4 });
    l.join(r, (x, y) => x + y, JoinWindows.ofTimeDifferenceWithNoGrace(1), { name: 'lr' }).to('out', {
      value: Serdes.string,
    });
    expect(() => new TopologyTestDriver(b.build())).toThrow(
      /join "lr" .*app-l2-repartition \(2 partitions\), app-r4-repartition \(4 partitions\)/,
    );
  });
});

describe('describe()', () => {
  function topology() {
    const b = new StreamsBuilder({ applicationId: 'shop' });
    const customers = b.table('customers', { ...str, name: 'customers' });
    b.stream('orders', str)
      .selectKey((_k, v) => v)
      .groupByKey({ key: Serdes.string })
      .windowedBy(TimeWindows.ofSizeAndGrace(60_000, 5_000))
      .count({ name: 'orders-per-minute' });
    b.stream('payments', str)
      .join(customers, (p, c) => `${p}/${c}`, { name: 'payments-enriched' })
      .to('enriched', { value: Serdes.string });
    b.globalTable('products', { ...str, name: 'products' });
    return b.build();
  }

  it('returns the subtopologies, stores and internal topics as JSON', () => {
    const d = topology().describe();
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    expect(d.applicationId).toBe('shop');
    expect(d.subtopologies.map((s) => s.nodes.map((n) => n.name))).toEqual([
      ['source-customers', 'customers', 'source-payments', 'payments-enriched', 'to-2'],
      ['source-orders', 'selectKey-1', 'orders-per-minute-repartition-sink'],
      ['orders-per-minute-repartition-source', 'orders-per-minute'],
    ]);
    const count = d.subtopologies[2].nodes[1];
    expect(count).toMatchObject({ operation: 'tumbling-window-count', stores: ['orders-per-minute'] });
    expect(d.internalTopics).toEqual([
      { name: 'shop-orders-per-minute-repartition', kind: 'repartition', partitions: undefined },
      { name: 'shop-customers-changelog', kind: 'changelog' },
      { name: 'shop-orders-per-minute-changelog', kind: 'changelog' },
    ]);
    expect(d.globalStores).toEqual([expect.objectContaining({ store: 'products', topic: 'products' })]);
    expect(d.stores.find((s) => s.name === 'products')).toEqual({
      name: 'products',
      kind: 'keyValue',
      global: true,
    });
  });

  it('renders a Mermaid flowchart with a subgraph per subtopology, topics and stores', () => {
    const m = topology().describe().mermaid;
    expect(m.startsWith('flowchart TD\n')).toBe(true);
    expect(m).toContain('subgraph sub0["Sub-topology 0"]');
    expect(m).toContain('subgraph sub2["Sub-topology 2"]');
    expect(m).toContain('subgraph global["Global tables"]');
    expect(m).toMatch(/\(\["shop-orders-per-minute-repartition"\]\)/);
    expect(m).toMatch(/\[\("orders-per-minute"\)\]/);
    expect(m).toContain('"orders-per-minute<br/>tumbling-window-count"');
    // Every edge joins declared ids.
    const declared = new Set([...m.matchAll(/^\s+(\w+)[[(]/gm)].map((x) => x[1]));
    for (const [, from, to] of m.matchAll(/^\s+(\w+) -[-.]+[->] (\w+)$/gm)) {
      expect(declared).toContain(from);
      expect(declared).toContain(to);
    }
  });

  it('names stay the same when an unrelated stateless node is added', () => {
    const names = (extra: boolean) => {
      const b = new StreamsBuilder({ applicationId: 'app' });
      let s = b.stream('a', str);
      if (extra) s = s.filter(() => true);
      s.groupByKey().count({ name: 'counts' });
      const d = b.build().describe();
      return [d.stores.map((x) => x.name), d.internalTopics.map((x) => x.name)];
    };
    expect(names(true)).toEqual(names(false));
  });
});

describe('diff() between versions', () => {
  function version(storeName: string, grouping?: string) {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('orders', str)
      .selectKey((_k, v) => v)
      .groupByKey({ key: Serdes.string, name: grouping })
      .count({ name: storeName });
    return b.build();
  }

  it('an unchanged version orphans nothing', () => {
    const d = version('counts').diff(version('counts').describe());
    expect(d.orphansState).toBe(false);
    expect(d.removedStores).toEqual([]);
  });

  it('a renamed store orphans its state, its changelog and its repartition topic', () => {
    const d = version('order-counts').diff(version('counts').describe());
    expect(d).toEqual({
      removedStores: ['counts'],
      addedStores: ['order-counts'],
      removedInternalTopics: ['app-counts-changelog', 'app-counts-repartition'],
      addedInternalTopics: ['app-order-counts-changelog', 'app-order-counts-repartition'],
      changedStoreKinds: [],
      orphansState: true,
    });
  });

  it('naming the grouping keeps the repartition topic when the store is renamed', () => {
    const d = version('order-counts', 'by-value').diff(version('counts', 'by-value').describe());
    expect(d.removedInternalTopics).toEqual(['app-counts-changelog']);
  });

  it('a store that changes kind cannot be reused', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('orders', str)
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(10))
      .count({ name: 'counts' });
    const prev = (() => {
      const p = new StreamsBuilder({ applicationId: 'app' });
      p.stream('orders', str).groupByKey().count({ name: 'counts' });
      return p.build().describe();
    })();
    expect(b.build().diff(prev)).toMatchObject({ changedStoreKinds: ['counts'], orphansState: true });
  });
});
