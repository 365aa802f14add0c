/** examples/streams/, each run through the test driver with several partitions. */
import { Serdes, StreamsBuilder, TopologyTestDriver } from '../../../streams';
import { wordCount } from '../../../examples/streams/word-count';
import { exactlyOnceCopy, type Payment as CopiedPayment } from '../../../examples/streams/exactly-once-copy';
import { pageViews, type PageView } from '../../../examples/streams/page-views';
import {
  ordersPayments,
  type Order,
  type OrderStatus,
  type Payment,
} from '../../../examples/streams/orders-payments';
import {
  ordersCustomers,
  type Customer,
  type EnrichedOrder,
} from '../../../examples/streams/orders-customers';
import { ordersCustomersGlobal } from '../../../examples/streams/orders-customers-global';

function driverFor(add: (b: StreamsBuilder) => void, partitions: Record<string, number>): TopologyTestDriver {
  const b = new StreamsBuilder({ applicationId: 'example' });
  add(b);
  return new TopologyTestDriver(b.build(), { partitions });
}

describe('examples/streams', () => {
  it('exactly-once copy keeps positive payments, in order per key', () => {
    const driver = driverFor(exactlyOnceCopy, { 'payments-in': 2, 'payments-out': 2 });
    const input = driver.inputTopic('payments-in', Serdes.string, Serdes.json<CopiedPayment>());
    input.pipeInput('p1', { id: 'p1', amount: 10 }, 1);
    input.pipeInput('p2', { id: 'p2', amount: 0 }, 2);
    input.pipeInput('p1', { id: 'p1', amount: 5 }, 3);
    const out = driver.outputTopic('payments-out', Serdes.string, Serdes.json<CopiedPayment>());
    expect(out.readKeyValuesToList()).toEqual([
      ['p1', { id: 'p1', amount: 10 }],
      ['p1', { id: 'p1', amount: 5 }],
    ]);
  });

  it('word count', () => {
    const driver = driverFor(wordCount, { 'text-lines': 3 });
    const lines = driver.inputTopic('text-lines', Serdes.string, Serdes.string);
    lines.pipeInput('l1', 'the quick brown fox', 1);
    lines.pipeInput('l2', 'The lazy dog, the end.', 2);
    const counts = new Map(
      driver.outputTopic('word-counts', Serdes.string, Serdes.number).readKeyValuesToList(),
    );
    expect(counts.get('the')).toBe(3);
    expect(counts.get('fox')).toBe(1);
    expect(counts.size).toBe(7);
  });

  it('page views per user per minute, final results', () => {
    const driver = driverFor(pageViews, { 'page-views': 2 });
    const views = driver.inputTopic('page-views', Serdes.string, Serdes.json<PageView>());
    for (const [t, user] of [
      [1_000, 'ann'],
      [2_000, 'ann'],
      [3_000, 'bob'],
      [61_000, 'ann'],
      [75_000, 'ann'],
      [75_000, 'bob'],
    ] as const) {
      views.pipeInput(`v${t}`, { user, page: '/' }, t);
    }
    const out = driver.outputTopic('views-per-user-minute', Serdes.windowed(Serdes.string), Serdes.number);
    expect(
      out
        .readRecordsToList()
        .map((r) => [r.key!.key, r.key!.window.start, r.value])
        .sort(),
    ).toEqual([
      ['ann', 0, 2],
      ['bob', 0, 1],
    ]);
  });

  it('orders joined with payments', () => {
    const driver = driverFor(ordersPayments, { orders: 2, payments: 2 });
    const orders = driver.inputTopic('orders', Serdes.string, Serdes.json<Order>());
    const payments = driver.inputTopic('payments', Serdes.string, Serdes.json<Payment>());
    orders.pipeInput('o1', { customer: 'c1', amount: 10 }, 0);
    orders.pipeInput('o2', { customer: 'c2', amount: 20 }, 1_000);
    orders.pipeInput('o3', { customer: 'c3', amount: 30 }, 2_000);
    payments.pipeInput('o1', { amount: 10 }, 60_000);
    payments.pipeInput('o3', { amount: 5 }, 120_000);
    // Much later, on both partitions: every window closes, o2 is reported unpaid.
    orders.pipeInput('later-a', { customer: 'x', amount: 1 }, 3_600_000, { partition: 0 });
    orders.pipeInput('later-b', { customer: 'x', amount: 1 }, 3_600_000, { partition: 1 });
    const status = driver
      .outputTopic('order-status', Serdes.string, Serdes.json<OrderStatus>())
      .readKeyValuesToList()
      .map(([k, v]) => [k, v!.status])
      .sort();
    expect(status).toEqual([
      ['o1', 'paid'],
      ['o2', 'unpaid'],
      ['o3', 'underpaid'],
    ]);
  });

  it('orders enriched with customers', () => {
    const driver = driverFor(ordersCustomers, { orders: 3, customers: 2 });
    expect(driver.partitionsOf('example-enrich-repartition')).toBe(2);
    driver
      .inputTopic('customers', Serdes.string, Serdes.json<Customer>())
      .pipeInput('c1', { name: 'Ada', tier: 'gold' }, 0);
    const orders = driver.inputTopic('orders', Serdes.string, Serdes.json<Order>());
    orders.pipeInput('o1', { customer: 'c1', amount: 10 }, 1);
    orders.pipeInput('o2', { customer: 'c9', amount: 20 }, 2);
    const out = driver
      .outputTopic('orders-enriched', Serdes.string, Serdes.json<EnrichedOrder>())
      .readKeyValuesToList()
      .sort();
    expect(out).toEqual([
      ['c1', { customer: 'c1', amount: 10, customerName: 'Ada', tier: 'gold' }],
      ['c9', { customer: 'c9', amount: 20, customerName: null, tier: null }],
    ]);
  });

  it('orders enriched from a global table: keyed by order id, no repartition, any partition counts', () => {
    const driver = driverFor(ordersCustomersGlobal, { orders: 3, customers: 2, 'orders-enriched': 3 });
    const customers = driver.inputTopic('customers', Serdes.string, Serdes.json<Customer>());
    customers.pipeInput('c1', { name: 'Ada', tier: 'gold' }, 0);
    const orders = driver.inputTopic('orders', Serdes.string, Serdes.json<Order>());
    orders.pipeInput('o1', { customer: 'c1', amount: 10 }, 1);
    orders.pipeInput('o2', { customer: 'c9', amount: 20 }, 2);
    customers.pipeInput('c1', { name: 'Ada L.', tier: 'gold' }, 3);
    orders.pipeInput('o3', { customer: 'c1', amount: 30 }, 4);
    const out = driver
      .outputTopic('orders-enriched', Serdes.string, Serdes.json<EnrichedOrder>())
      .readKeyValuesToList()
      .sort();
    expect(out).toEqual([
      ['o1', { customer: 'c1', amount: 10, customerName: 'Ada', tier: 'gold' }],
      ['o2', { customer: 'c9', amount: 20, customerName: null, tier: null }],
      ['o3', { customer: 'c1', amount: 30, customerName: 'Ada L.', tier: 'gold' }],
    ]);
    expect(driver.topology.internalTopics.size).toBe(0);
  });
});
