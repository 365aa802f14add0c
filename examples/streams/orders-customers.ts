/**
 * Orders enriched with the customer's current record (stream–table, left join): orders are keyed by
 * order id, so they are re-keyed by customer id first, which repartitions them to the customers
 * topic's partition count (`<app>-enrich-repartition`).
 */
import { Serdes, type StreamsBuilder } from '../../streams';
import type { Order } from './orders-payments';

export interface Customer {
  name: string;
  tier: 'gold' | 'standard';
}
export interface EnrichedOrder extends Order {
  customerName: string | null;
  tier: Customer['tier'] | null;
}

export function ordersCustomers(b: StreamsBuilder): void {
  const customers = b.table('customers', {
    key: Serdes.string,
    value: Serdes.json<Customer>(),
    name: 'customers',
  });
  b.stream('orders', { key: Serdes.string, value: Serdes.json<Order>() })
    .selectKey((_orderId, order) => order.customer)
    .leftJoin(
      customers,
      (order, customer): EnrichedOrder => ({
        ...order,
        customerName: customer?.name ?? null,
        tier: customer?.tier ?? null,
      }),
      { name: 'enrich' },
    )
    .to('orders-enriched', { key: Serdes.string, value: Serdes.json<EnrichedOrder>() });
}
