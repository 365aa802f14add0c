/**
 * Type-level tests: serdes travel with the types, so mismatches do not compile. Each
 * `@ts-expect-error` fails the type check (tsc, ts-jest) if the line it marks compiles.
 */
import {
  JoinWindows,
  Serdes,
  StreamsBuilder,
  type KStream,
  type KTable,
  type Windowed,
  TimeWindows,
} from '../../../streams';

interface Order {
  id: string;
  amount: number;
}

describe('types', () => {
  it('a serde must match the declared type', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    // @ts-expect-error -- a number serde for a string key
    b.stream<string, Order>('orders', { key: Serdes.number, value: Serdes.json<Order>() });
    const s: KStream<string, Order> = b.stream('orders2', {
      key: Serdes.string,
      value: Serdes.json<Order>(),
    });
    // @ts-expect-error -- writing Order values with a number serde
    s.to('out', { value: Serdes.number });
    s.mapValues((o) => o.amount).to('amounts', { value: Serdes.number });
    // @ts-expect-error -- the value is a number after mapValues
    s.mapValues((o) => o.amount).to('amounts2', { value: Serdes.string });
    expect(b).toBeDefined();
  });

  it('left joins hand the joiner V2 | null; inner joins V2', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const l = b.stream('l', { key: Serdes.string, value: Serdes.number });
    const r = b.stream('r', { key: Serdes.string, value: Serdes.string });
    const w = JoinWindows.ofTimeDifferenceWithNoGrace(10);
    l.join(r, (n, s) => n + s.length, w, { name: 'inner' });
    // @ts-expect-error -- s may be null in a left join
    l.leftJoin(r, (n, s) => n + s.length, w, { name: 'left-bad' });
    l.leftJoin(r, (n, s) => n + (s?.length ?? 0), w, { name: 'left-ok' });
    const t: KTable<string, string> = b.table('t', { key: Serdes.string, value: Serdes.string, name: 't' });
    // @ts-expect-error -- the table value may be null in a left join
    l.leftJoin(t, (n, v) => v.length + n, { name: 'lt-bad' });
    expect(b).toBeDefined();
  });

  it('windowed tables are keyed by Windowed<K>, and joins need equal key types', () => {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const counts: KTable<Windowed<string>, number> = b
      .stream('in', { key: Serdes.string, value: Serdes.string })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(10))
      .count({ name: 'c' });
    counts.toStream().to('out', { key: Serdes.windowed(Serdes.string), value: Serdes.number });
    // @ts-expect-error -- a plain string serde for a windowed key
    counts.toStream().to('out2', { key: Serdes.string, value: Serdes.number });
    const numbers = b.stream('n', { key: Serdes.number, value: Serdes.string });
    const strings = b.stream('s', { key: Serdes.string, value: Serdes.string });
    // @ts-expect-error -- keys of different types cannot be joined
    strings.join(numbers, (a, c) => a + c, JoinWindows.ofTimeDifferenceWithNoGrace(1), { name: 'x' });
    expect(b).toBeDefined();
  });
});
