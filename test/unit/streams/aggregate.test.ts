import { Serdes, StreamsBuilder, TopologyTestDriver } from '../../../streams';

interface Order {
  customer: string;
  amount: number;
}
const orders = { key: Serdes.string, value: Serdes.json<Order>() };

describe('aggregations', () => {
  it('groupByKey().count() keeps a count per key and forwards each update', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('words', { key: Serdes.string, value: Serdes.string })
      .groupByKey()
      .count({ name: 'counts' })
      .toStream()
      .to('counts-out', { value: Serdes.number });
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('words', Serdes.string, Serdes.string);
    for (const w of ['a', 'b', 'a', 'a']) input.pipeInput(w, w, 1);
    expect(driver.outputTopic('counts-out', Serdes.string, Serdes.number).readKeyValuesToList()).toEqual([
      ['a', 1],
      ['b', 1],
      ['a', 2],
      ['a', 3],
    ]);
    expect(driver.getKeyValueStore<string, number>('counts').get('a')).toBe(3);
    expect(driver.getKeyValueStore<string, number>('counts').get('zzz')).toBeNull();
  });

  it('groupBy repartitions through <app>-<name>-repartition, so each key is counted by one task', () => {
    const b = new StreamsBuilder({ applicationId: 'shop' });
    b.stream('orders', orders)
      .groupBy((_k, o) => o.customer, { key: Serdes.string })
      .aggregate(
        () => 0,
        (_k, o, sum) => sum + o.amount,
        { name: 'spend', value: Serdes.number },
      )
      .toStream()
      .to('spend-out', { value: Serdes.number });
    const topology = b.build();
    expect([...topology.internalTopics.keys()]).toEqual(['shop-spend-repartition']);
    const driver = new TopologyTestDriver(topology, { partitions: { orders: 3 } });
    expect(driver.partitionsOf('shop-spend-repartition')).toBe(3);
    expect(driver.taskIds()).toEqual(['0_0', '0_1', '0_2', '1_0', '1_1', '1_2']);
    const input = driver.inputTopic('orders', Serdes.string, Serdes.json<Order>());
    // Order ids spread the records over the 3 input partitions; customers must still sum in one place.
    for (let i = 0; i < 30; i++) input.pipeInput(`order-${i}`, { customer: `c${i % 3}`, amount: i }, i);
    const store = driver.getKeyValueStore<string, number>('spend');
    for (let c = 0; c < 3; c++) {
      let expected = 0;
      for (let i = c; i < 30; i += 3) expected += i;
      expect(store.get(`c${c}`)).toBe(expected);
    }
    expect(store.all()).toHaveLength(3);
    const tasks = driver.metrics().tasks;
    const inputTasks = tasks.filter((t) => t.id.startsWith('0_'));
    expect(inputTasks.every((t) => t.recordsIn > 0)).toBe(true);
    // Every record crosses the repartition topic once, and every aggregate update is written out.
    expect(inputTasks.reduce((n, t) => n + t.recordsOut, 0)).toBe(30);
    const aggTasks = tasks.filter((t) => t.id.startsWith('1_'));
    expect(aggTasks.reduce((n, t) => n + t.recordsIn, 0)).toBe(30);
    expect(aggTasks.reduce((n, t) => n + t.recordsOut, 0)).toBe(30);
  });

  it('a re-keyed stream repartitions at the next grouping, named after the grouping', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('orders', orders)
      .selectKey((_k, o) => o.customer)
      .groupByKey({ name: 'by-customer', key: Serdes.string })
      .reduce((a, o) => ({ customer: a.customer, amount: a.amount + o.amount }), { name: 'totals' });
    expect([...b.build().internalTopics.keys()]).toEqual(['app-by-customer-repartition']);
  });

  it('mapValues keeps partitioning: no repartition topic', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('orders', orders)
      .mapValues((o) => o.amount)
      .groupByKey()
      .reduce((a, v) => a + v, { name: 'totals', value: Serdes.number });
    expect(b.build().internalTopics.size).toBe(0);
  });

  it('a repartition without serdes is a build error naming the topic', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('orders', orders)
      .map((_k, o) => [o.customer, o.amount] as const)
      .groupByKey()
      .count({ name: 'n' });
    expect(() => b.build()).toThrow(/app-n-repartition/);
  });

  it('a store without serdes is a build error (the runtime changelogs every store)', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('orders', orders)
      .mapValues((o) => o.amount)
      .groupByKey()
      .reduce((a, v) => a + v, { name: 'totals' });
    expect(() => b.build()).toThrow(/the value of store "totals" has no serde/);
  });

  it('reduce starts from the first value', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('n', { key: Serdes.string, value: Serdes.number })
      .groupByKey()
      .reduce((a, v) => Math.max(a, v), { name: 'max' });
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('n', Serdes.string, Serdes.number);
    for (const v of [-5, -9, -2, -7]) input.pipeInput('k', v, 1);
    expect(driver.getKeyValueStore('max').get('k')).toBe(-2);
  });

  it('records without a key are not aggregated', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('w', { key: Serdes.string, value: Serdes.string }).groupByKey().count({ name: 'c' });
    const driver = new TopologyTestDriver(b.build());
    driver.inputTopic('w', Serdes.string, Serdes.string).pipeInput(null, 'x', 1);
    expect(driver.getKeyValueStore('c').all()).toEqual([]);
  });

  it('KTable.groupBy aggregates with an adder and a subtractor: a moved key leaves its old group', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.table('user-regions', { key: Serdes.string, value: Serdes.string, name: 'users' })
      .groupBy((user, region) => [region, user] as const, { key: Serdes.string, value: Serdes.string })
      .count({ name: 'users-per-region' })
      .toStream()
      .to('per-region', { value: Serdes.number });
    const topology = b.build();
    expect([...topology.internalTopics.keys()]).toEqual(['app-users-per-region-repartition']);
    const driver = new TopologyTestDriver(topology, { partitions: { 'user-regions': 2 } });
    const input = driver.inputTopic('user-regions', Serdes.string, Serdes.string);
    input.pipeInput('alice', 'eu', 1);
    input.pipeInput('bob', 'eu', 2);
    input.pipeInput('carol', 'us', 3);
    input.pipeInput('alice', 'us', 4); // moves: eu -1, us +1
    input.pipeInput('bob', null, 5); // deleted: eu -1
    const store = driver.getKeyValueStore<string, number>('users-per-region');
    expect(store.get('eu')).toBe(0);
    expect(store.get('us')).toBe(2);
    const out = driver.outputTopic('per-region', Serdes.string, Serdes.number).readKeyValuesToList();
    expect(out).toEqual([
      ['eu', 1],
      ['eu', 2],
      ['us', 1],
      ['eu', 1],
      ['us', 2],
      ['eu', 0],
    ]);
  });

  it('KTable.groupBy reduce with a subtractor', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.table('balances', { key: Serdes.string, value: Serdes.number, name: 'balances' })
      .groupBy((_acct, v) => ['total', v] as const, { key: Serdes.string, value: Serdes.number })
      .reduce(
        (a, v) => a + v,
        (a, v) => a - v,
        { name: 'total' },
      );
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('balances', Serdes.string, Serdes.number);
    input.pipeInput('a', 10, 1);
    input.pipeInput('b', 5, 2);
    input.pipeInput('a', 3, 3);
    expect(driver.getKeyValueStore('total').get('total')).toBe(8);
  });

  it('toTable keeps the latest value per key; a null value deletes it', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('kv', { key: Serdes.string, value: Serdes.string })
      .toTable({ name: 'latest' })
      .toStream()
      .to('changes');
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('kv', Serdes.string, Serdes.string);
    input.pipeInput('k', 'v1', 1);
    input.pipeInput('k', 'v2', 2);
    input.pipeInput('k', null, 3);
    input.pipeInput('gone', null, 4); // deleting a missing key changes nothing
    expect(driver.getKeyValueStore('latest').get('k')).toBeNull();
    expect(driver.outputTopic('changes', Serdes.string, Serdes.string).readKeyValuesToList()).toEqual([
      ['k', 'v1'],
      ['k', 'v2'],
      ['k', null],
    ]);
  });

  it('KTable filter and mapValues forward deletes for keys that stop passing', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.table('t', { key: Serdes.string, value: Serdes.number, name: 't' })
      .filter((_k, v) => v > 10)
      .mapValues((v) => `v=${v}`)
      .toStream()
      .to('out', { value: Serdes.string });
    const driver = new TopologyTestDriver(b.build());
    const input = driver.inputTopic('t', Serdes.string, Serdes.number);
    input.pipeInput('k', 5, 1); // never passed: nothing
    input.pipeInput('k', 50, 2);
    input.pipeInput('k', 7, 3); // stops passing: a delete
    expect(driver.outputTopic('out', Serdes.string, Serdes.string).readKeyValuesToList()).toEqual([
      ['k', 'v=50'],
      ['k', null],
    ]);
  });

  it('caching holds table updates per key until commit and forwards only the latest', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('w', { key: Serdes.string, value: Serdes.string })
      .groupByKey()
      .count({ name: 'c' })
      .toStream()
      .to('out', { value: Serdes.number });
    const driver = new TopologyTestDriver(b.build(), { caching: true, commitIntervalMs: 1000 });
    const input = driver.inputTopic('w', Serdes.string, Serdes.string);
    for (const w of ['a', 'b', 'a', 'a', 'b']) input.pipeInput(w, w, 1);
    const out = driver.outputTopic('out', Serdes.string, Serdes.number);
    expect(out.readKeyValuesToList()).toEqual([]);
    expect(driver.getKeyValueStore('c').get('a')).toBe(3); // the store is current; only forwarding waits
    driver.advanceWallClock(999);
    expect(out.isEmpty()).toBe(true);
    driver.advanceWallClock(1);
    expect(out.readKeyValuesToList()).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    input.pipeInput('a', 'a', 2);
    driver.commit();
    expect(out.readKeyValuesToList()).toEqual([['a', 4]]);
  });
});
