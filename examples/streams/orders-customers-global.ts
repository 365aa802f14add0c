/**
 * Orders enriched with the customer's current record from a global table: every instance holds
 * all of `customers`, so the orders join it through their `customer` field where they are, keyed
 * by order id — no re-key, no repartition topic, and the two topics' partition counts need not
 * match. On a cluster, `start()` loads the table before the first order is joined.
 */
import { Serdes, type StreamsBuilder } from '../../streams';
import type { Customer, EnrichedOrder } from './orders-customers';
import type { Order } from './orders-payments';

export function ordersCustomersGlobal(b: StreamsBuilder): void {
  const customers = b.globalTable('customers', {
    key: Serdes.string,
    value: Serdes.json<Customer>(),
    name: 'customers-global',
  });
  b.stream('orders', { key: Serdes.string, value: Serdes.json<Order>() })
    .leftJoin(
      customers,
      (_orderId, order) => order.customer,
      (order, customer): EnrichedOrder => ({
        ...order,
        customerName: customer?.name ?? null,
        tier: customer?.tier ?? null,
      }),
      { name: 'enrich-global' },
    )
    .to('orders-enriched', { key: Serdes.string, value: Serdes.json<EnrichedOrder>() });
}
