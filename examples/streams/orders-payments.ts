/**
 * Orders joined with their payments (stream–stream, both keyed by order id): a payment within
 * 10 minutes of its order makes a `paid` record; an order without one, once its window has
 * closed, makes an `unpaid` record (left join: the joiner gets null).
 */
import { JoinWindows, Serdes, type StreamsBuilder } from '../../streams';

export interface Order {
  customer: string;
  amount: number;
}
export interface Payment {
  amount: number;
}
export interface OrderStatus {
  order: Order;
  status: 'paid' | 'unpaid' | 'underpaid';
}

export function ordersPayments(b: StreamsBuilder): void {
  const orders = b.stream('orders', { key: Serdes.string, value: Serdes.json<Order>() });
  const payments = b.stream('payments', { key: Serdes.string, value: Serdes.json<Payment>() });
  orders
    .leftJoin(
      payments,
      (order, payment): OrderStatus => ({
        order,
        status: payment === null ? 'unpaid' : payment.amount >= order.amount ? 'paid' : 'underpaid',
      }),
      JoinWindows.ofTimeDifferenceAndGrace(10 * 60_000, 60_000),
      { name: 'order-payments' },
    )
    .to('order-status', { value: Serdes.json<OrderStatus>() });
}
