import { Serdes, StreamsBuilder, TopologyTestDriver } from '../../../streams';

interface Order {
  product: string | null;
  qty: number;
}

function build(kind: 'join' | 'leftJoin') {
  const b = new StreamsBuilder({ applicationId: 'shop' });
  const orders = b.table('orders', { key: Serdes.string, value: Serdes.json<Order>(), name: 'orders' });
  const products = b.table('products', { key: Serdes.string, value: Serdes.string, name: 'products' });
  const joined =
    kind === 'join'
      ? orders.join(
          products,
          (o) => o.product!,
          (o, name) => `${o.qty} x ${name}`,
          { name: 'order-lines' },
        )
      : orders.leftJoin(
          products,
          (o) => o.product,
          (o, name) => `${o.qty} x ${name ?? '?'}`,
          { name: 'order-lines' },
        );
  joined.toStream().to('lines', { value: Serdes.string });
  const topology = b.build();
  // Not co-partitioned: the lookups travel over two internal topics.
  const driver = new TopologyTestDriver(topology, { partitions: { orders: 3, products: 2 } });
  return {
    topology,
    driver,
    orders: driver.inputTopic('orders', Serdes.string, Serdes.json<Order>()),
    products: driver.inputTopic('products', Serdes.string, Serdes.string),
    read: () => driver.outputTopic('lines', Serdes.string, Serdes.string).readKeyValuesToList(),
  };
}

describe('foreign-key table–table join', () => {
  it('runs over subscription topics sized like each side', () => {
    const { topology, driver } = build('join');
    expect([...topology.internalTopics.keys()]).toEqual([
      'shop-order-lines-subscription-registration',
      'shop-order-lines-subscription-response',
    ]);
    expect(driver.partitionsOf('shop-order-lines-subscription-registration')).toBe(2);
    expect(driver.partitionsOf('shop-order-lines-subscription-response')).toBe(3);
  });

  it('inner: joins each left value with the right value of its foreign key, following changes on both sides', () => {
    const { orders, products, read, driver } = build('join');
    orders.pipeInput('o1', { product: 'p1', qty: 2 }, 1); // no product yet
    expect(read()).toEqual([]);
    products.pipeInput('p1', 'pen', 2);
    expect(read()).toEqual([['o1', '2 x pen']]);
    orders.pipeInput('o2', { product: 'p1', qty: 5 }, 3);
    products.pipeInput('p1', 'fountain pen', 4); // every subscriber is answered again
    expect(read()).toEqual([
      ['o2', '5 x pen'],
      ['o1', '2 x fountain pen'],
      ['o2', '5 x fountain pen'],
    ]);
    products.pipeInput('p2', 'ink', 5);
    orders.pipeInput('o1', { product: 'p2', qty: 2 }, 6); // moves to another foreign key
    expect(read()).toEqual([['o1', '2 x ink']]);
    products.pipeInput('p1', 'pen v3', 7); // o1 no longer subscribes to p1
    expect(read()).toEqual([['o2', '5 x pen v3']]);
    products.pipeInput('p2', null, 8); // right side deleted: inner result deleted
    expect(read()).toEqual([['o1', null]]);
    orders.pipeInput('o2', null, 9); // left side deleted
    expect(read()).toEqual([['o2', null]]);
    expect(driver.getKeyValueStore('order-lines').all()).toEqual([]);
  });

  it('left: null while the foreign key has no value or the value has no foreign key', () => {
    const { orders, products, read } = build('leftJoin');
    orders.pipeInput('o1', { product: 'p1', qty: 1 }, 1);
    expect(read()).toEqual([['o1', '1 x ?']]);
    products.pipeInput('p1', 'pen', 2);
    expect(read()).toEqual([['o1', '1 x pen']]);
    orders.pipeInput('o1', { product: null, qty: 1 }, 3);
    expect(read()).toEqual([['o1', '1 x ?']]);
    products.pipeInput('p1', 'pen v2', 4); // unsubscribed: nothing
    expect(read()).toEqual([]);
  });

  it('answers to an older value of the left key are dropped', () => {
    const { orders, products, read } = build('join');
    products.pipeRecords([
      { key: 'p1', value: 'pen', timestampMs: 1 },
      { key: 'p2', value: 'ink', timestampMs: 1 },
    ]);
    // Both updates are processed before either answer comes back: the answer for p1 is stale.
    orders.pipeRecords([
      { key: 'o1', value: { product: 'p1', qty: 1 }, timestampMs: 2 },
      { key: 'o1', value: { product: 'p2', qty: 1 }, timestampMs: 3 },
    ]);
    expect(read()).toEqual([['o1', '1 x ink']]);
  });
});
