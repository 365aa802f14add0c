/**
 * Records that cannot be read or processed: deserializationErrors and processingErrors ('fail',
 * 'continue', a dead-letter topic), through the test driver, which runs the runtime's task.
 */
import { Serdes, StreamsBuilder, StreamsError, TopologyTestDriver, type Serde } from '../../../streams';
import type { RecordErrorPolicy } from '../../../streams/runtime/task';
import { PassedOverLogger } from '../../../streams/runtime/record-errors';
import type { ProcessorContext } from '../../../streams/processor';
import { createLogger } from '../../../services/common/logger';

interface Order {
  amount: number;
}

/** Orders as JSON; the input is piped as raw bytes so some can be unreadable. */
function driverFor(options: {
  deserializationErrors?: RecordErrorPolicy;
  processingErrors?: RecordErrorPolicy;
}) {
  const b = new StreamsBuilder({ applicationId: 'app' });
  b.stream('orders', { key: Serdes.string, value: Serdes.json<Order>() })
    .mapValues((o) => {
      if (o.amount < 0) throw new RangeError(`negative amount ${o.amount}`);
      return o.amount * 2;
    })
    .to('doubled', { value: Serdes.number });
  const driver = new TopologyTestDriver(b.build(), options);
  const input = driver.inputTopic('orders', Serdes.string, Serdes.bytes);
  const pipe = (key: string, json: string, ts: number) => input.pipeInput(key, Buffer.from(json), ts);
  const doubled = () => driver.outputTopic('doubled', Serdes.string, Serdes.number).readKeyValuesToList();
  return { driver, pipe, doubled };
}

const header = (headers: { key: string; value: Buffer | null }[], key: string) =>
  headers.find((h) => h.key === key)?.value?.toString('utf8');

describe('deserializationErrors', () => {
  it("'fail' (the default) throws a SERDE error naming the partition, the offset and the way out", () => {
    const { driver, pipe } = driverFor({});
    pipe('a', '{"amount":1}', 1);
    let error: unknown;
    try {
      pipe('b', '{"amount":', 2);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StreamsError);
    expect((error as StreamsError).kind).toBe('SERDE');
    expect((error as Error).message).toMatch(
      /^orders-0 at offset 1: serde json could not read 10 bytes: .*set deserializationErrors to 'continue' or \{ deadLetterTopic \}/,
    );
    driver.close();
  });

  it("'continue' skips the record, counts it, and processes the records around it in order", () => {
    const { driver, pipe, doubled } = driverFor({ deserializationErrors: 'continue' });
    pipe('a', '{"amount":1}', 1);
    pipe('b', 'not json', 2);
    pipe('c', '{"amount":3}', 3);
    expect(doubled()).toEqual([
      ['a', 2],
      ['c', 6],
    ]);
    expect(driver.metrics().droppedRecords).toBe(1);
    driver.close();
  });

  it('a dead-letter topic gets the record as it was read, with headers saying why and where from', () => {
    const { driver, pipe, doubled } = driverFor({ deserializationErrors: { deadLetterTopic: 'orders-dlq' } });
    pipe('a', '{"amount":1}', 1);
    pipe('b', 'not json', 2);
    expect(doubled()).toEqual([['a', 2]]);
    const dead = driver.outputTopic('orders-dlq', Serdes.string, Serdes.string).readRecordsToList();
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ key: 'b', value: 'not json', timestampMs: 2 });
    const h = dead[0]!.headers;
    expect(header(h, '__streams.errors.exception')).toBe('StreamsError');
    expect(header(h, '__streams.errors.message')).toMatch(/serde json could not read 8 bytes/);
    expect(header(h, '__streams.errors.topic')).toBe('orders');
    expect(header(h, '__streams.errors.partition')).toBe('0');
    expect(header(h, '__streams.errors.offset')).toBe('1');
    expect(header(h, '__streams.errors.stacktrace')).toMatch(/StreamsError/);
    expect(driver.metrics().droppedRecords).toBe(1);
    driver.close();
  });
});

describe('processingErrors', () => {
  it("'fail' (the default) lets the processor's error through", () => {
    const { driver, pipe } = driverFor({});
    expect(() => pipe('a', '{"amount":-1}', 1)).toThrow(/negative amount -1/);
    driver.close();
  });

  it("'continue' skips a record whose processing throws; a dead-letter topic gets it", () => {
    const skip = driverFor({ processingErrors: 'continue' });
    skip.pipe('a', '{"amount":-1}', 1);
    skip.pipe('b', '{"amount":2}', 2);
    expect(skip.doubled()).toEqual([['b', 4]]);
    expect(skip.driver.metrics().droppedRecords).toBe(1);
    skip.driver.close();

    const dlq = driverFor({ processingErrors: { deadLetterTopic: 'orders-dlq' } });
    dlq.pipe('a', '{"amount":-1}', 1);
    const dead = dlq.driver.outputTopic('orders-dlq', Serdes.string, Serdes.string).readRecordsToList();
    expect(dead.map((r) => [r.key, r.value])).toEqual([['a', '{"amount":-1}']]);
    expect(header(dead[0]!.headers, '__streams.errors.exception')).toBe('RangeError');
    expect(header(dead[0]!.headers, '__streams.errors.message')).toBe('negative amount -1');
    dlq.driver.close();
  });

  it('a failing key serde of a sink is a processing error too', () => {
    const failing: Serde<string> = {
      name: 'failing',
      serialize: () => {
        throw new Error('cannot write this key');
      },
      deserialize: (b) => b.toString(),
    };
    const b = new StreamsBuilder({ applicationId: 'app' });
    b.stream('in', { key: Serdes.string, value: Serdes.string }).to('out', { key: failing });
    const driver = new TopologyTestDriver(b.build(), { processingErrors: 'continue' });
    driver.inputTopic('in', Serdes.string, Serdes.string).pipeInput('k', 'v', 1);
    expect(driver.outputTopic('out', Serdes.string, Serdes.string).readKeyValuesToList()).toEqual([]);
    expect(driver.metrics().droppedRecords).toBe(1);
    driver.close();
  });
});

it('refuses an unknown policy, naming the option, and a dead-letter topic the application reads', () => {
  const b = new StreamsBuilder({ applicationId: 'app' });
  b.stream('in', { key: Serdes.string, value: Serdes.string }).to('out');
  const topology = b.build();
  expect(() => new TopologyTestDriver(topology, { deserializationErrors: 'skip' as never })).toThrow(
    /deserializationErrors must be 'fail', 'continue' or \{ deadLetterTopic: '<topic>' \}, got "skip"/,
  );
  expect(() => new TopologyTestDriver(topology, { processingErrors: { deadLetterTopic: '' } })).toThrow(
    /processingErrors must be/,
  );
  expect(() => new TopologyTestDriver(topology, { processingErrors: { deadLetterTopic: 'in' } })).toThrow(
    /the dead-letter topic in is read by the application: records copied there would fail again/,
  );
});

/** A warn-level logger whose lines the test reads, parsed. */
function warnLines() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'warn',
    destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
  });
  return { lines, logger };
}

it('logs skipped records at warn, at most one line a second, counting the ones held back', () => {
  const { lines, logger } = warnLines();
  let now = 0;
  const log = new PassedOverLogger(logger, () => now).dropped;
  const dropped = (offset: number) => ({
    taskId: '0_0',
    topic: 'orders',
    partition: 0,
    offset,
    stage: 'deserialization' as const,
    error: new Error('bad'),
  });
  for (let offset = 0; offset < 5; offset++) log(dropped(offset));
  now = 1_000;
  log(dropped(5));
  expect(lines.map((l) => [l.offset, l.alsoSkippedSinceLastWarning])).toEqual([
    [0, undefined],
    [5, 4],
  ]);
  expect(lines[0]).toMatchObject({
    msg: 'record skipped',
    topic: 'orders',
    stage: 'deserialization',
    error: 'bad',
  });
});

it('one budget of a line a second covers skipped records and failed punctuations', () => {
  const { lines, logger } = warnLines();
  let now = 0;
  const log = new PassedOverLogger(logger, () => now);
  const failed = (timestamp: number) => ({
    taskId: '0_1',
    node: 'sweeper',
    type: 'wallClock' as const,
    timestamp,
    error: new Error('disk full'),
  });
  log.punctuationFailed(failed(0));
  log.dropped({
    taskId: '0_1',
    topic: 'orders',
    partition: 1,
    offset: 7,
    stage: 'processing',
    error: new Error('x'),
  });
  now = 1_000;
  log.punctuationFailed(failed(1_000));
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatchObject({
    msg: 'punctuation failed and was passed over; it fires again at its next interval',
    task: '0_1',
    node: 'sweeper',
    punctuation: 'wallClock',
    timestamp: 0,
    error: 'disk full',
  });
  expect(lines[1]).toMatchObject({ timestamp: 1_000, alsoSkippedSinceLastWarning: 1 });
});

describe('processingErrors and punctuations', () => {
  /**
   * Every stream-time tick (each 10 ms) forwards the tick, then throws on odd ticks; every
   * wall-clock tick (each 1 s) throws before forwarding anything.
   */
  function punctuatingDriver(processingErrors?: RecordErrorPolicy) {
    const b = new StreamsBuilder({ applicationId: 'app' });
    const ticks: number[] = [];
    b.stream('in', { key: Serdes.string, value: Serdes.number })
      .process<string, number>(
        () => {
          let ctx!: ProcessorContext;
          return {
            init(c) {
              ctx = c;
              c.schedule(10, 'streamTime', (t) => {
                ticks.push(t);
                ctx.forward({ key: 'tick', value: t, timestamp: t, headers: [] });
                if ((t / 10) % 2 === 1) throw new Error(`tick ${t} failed`);
              });
              c.schedule(1_000, 'wallClock', () => {
                throw new Error('wall-clock sweep failed');
              });
            },
            process(r) {
              ctx.forward(r);
            },
          };
        },
        { name: 'ticker' },
      )
      .to('out', { key: Serdes.string, value: Serdes.number });
    const driver = new TopologyTestDriver(b.build(), processingErrors ? { processingErrors } : {});
    const input = driver.inputTopic('in', Serdes.string, Serdes.number);
    const out = () => driver.outputTopic('out', Serdes.string, Serdes.number).readKeyValuesToList();
    return { driver, input, out, ticks };
  }

  it("'fail' (the default): the call that fired the punctuation throws its error", () => {
    const { driver, input } = punctuatingDriver();
    input.pipeInput('a', 1, 0);
    expect(() => input.pipeInput('b', 2, 10)).toThrow('tick 10 failed');
    driver.close();
    const wall = punctuatingDriver('fail');
    expect(() => wall.driver.advanceWallClock(1_000)).toThrow('wall-clock sweep failed');
    wall.driver.close();
  });

  for (const policy of ['continue', { deadLetterTopic: 'dead' }] as const) {
    it(`${JSON.stringify(policy)}: passed over, counted, and fired again at the next interval`, () => {
      const { driver, input, out, ticks } = punctuatingDriver(policy);
      for (const [key, t] of [
        ['a', 0],
        ['b', 10],
        ['c', 20],
        ['d', 30],
      ] as const)
        input.pipeInput(key, t, t);
      driver.advanceWallClock(1_000);
      driver.advanceWallClock(1_000);
      expect(ticks).toEqual([0, 10, 20, 30]);
      // What a failing punctuation forwarded before it threw stands; the records all went through.
      expect(out()).toEqual([
        ['a', 0],
        ['tick', 0],
        ['b', 10],
        ['tick', 10],
        ['c', 20],
        ['tick', 20],
        ['d', 30],
        ['tick', 30],
      ]);
      // Ticks 10 and 30, and the wall-clock ones at 1 s and 2 s.
      expect(driver.metrics()).toMatchObject({ failedPunctuations: 4, droppedRecords: 0 });
      if (typeof policy === 'object') {
        expect(driver.outputTopic('dead', Serdes.bytes, Serdes.bytes).readRecordsToList()).toEqual([]);
      }
      driver.close();
    });
  }
});
