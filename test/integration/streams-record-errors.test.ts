/**
 * Unreadable and failing records on a real cluster (etcd, a controller, a broker, a group
 * coordinator as processes; the application in this process):
 *
 * - with a dead-letter topic for both, every readable order is doubled, each unreadable or
 *   failing one is in the dead-letter topic exactly as it was produced, with headers naming its
 *   partition and offset, the application keeps running and counts them, and the offsets go on
 *   past them (a restarted instance reads nothing again); under exactlyOnce too, read with
 *   read_committed (the dead letters are part of the task's transactions);
 * - without a policy, the first unreadable record stops the application with an error naming
 *   where it is, and nothing after it is processed;
 * - a dead-letter topic that does not exist fails start() with its name;
 * - a punctuation that throws is passed over under 'continue' (logged, counted, fired again) and
 *   stops the application under 'fail', the log naming the processor.
 */
import { Tide, type Consumer, type ConsumerRecord } from '../../client';
import { Serdes, type StreamsApp } from '../../streams';
import type { RecordErrorPolicy } from '../../streams/runtime/task';
import type { ProcessorContext } from '../../streams/processor';
import { TestCluster } from '../harness/cluster';
import { startStreamsCluster, stopStreamsCluster } from '../harness/streams-cluster';
import { waitFor } from '../harness/processes';
import { createLogger, type Logger } from '../../services/common/logger';

jest.setTimeout(120_000);

let cluster: TestCluster;
let tide: Tide;
const apps: StreamsApp[] = [];
const readers: Consumer[] = [];

beforeAll(async () => {
  ({ cluster, tide } = await startStreamsCluster());
});

afterAll(() => stopStreamsCluster({ cluster, tide }, ...apps, ...readers));

/** Doubles `amount` of JSON orders; a negative amount throws. */
function doubler(
  name: string,
  policies: {
    deserializationErrors?: RecordErrorPolicy;
    processingErrors?: RecordErrorPolicy;
    logger?: Logger;
  },
  processingGuarantee: 'atLeastOnce' | 'exactlyOnce' = 'atLeastOnce',
): StreamsApp {
  const b = tide.streams({ applicationId: name, processingGuarantee });
  b.stream(`${name}-orders`, { key: Serdes.string, value: Serdes.json<{ amount: number }>() })
    .mapValues((o) => {
      if (o.amount < 0) throw new RangeError(`negative amount ${o.amount}`);
      return o.amount * 2;
    })
    .to(`${name}-doubled`, { value: Serdes.number });
  const app = b.app(b.build(), {
    commitIntervalMs: 100,
    replicationFactor: 1,
    statusIntervalMs: 0,
    ...policies,
  });
  apps.push(app);
  return app;
}

async function topics(name: string, ...suffixes: string[]): Promise<void> {
  for (const s of suffixes)
    await tide.admin().createTopic(`${name}-${s}`, { partitions: 2, replicationFactor: 1 });
}

/** Every record of `topic`, every partition, as it arrives (committed ones only with read_committed). */
async function tail(
  topic: string,
  isolation: 'read_committed' | 'read_uncommitted' = 'read_uncommitted',
): Promise<ConsumerRecord[]> {
  const seen: ConsumerRecord[] = [];
  const { partitions } = (await tide.admin().describeTopic(topic)).topic;
  const reader = tide.consumer({ autoOffsetReset: 'earliest', isolation });
  readers.push(reader);
  reader.assign(partitions.map((p) => ({ topic, partition: p.partition, offset: 0 })));
  void (async () => {
    for await (const r of reader) seen.push(r);
  })();
  return seen;
}

/** One-partition orders and output topics, the orders holding `values` (keys a, b, c, …). */
async function onePartitionOf(name: string, values: string[]): Promise<void> {
  await tide.admin().createTopic(`${name}-orders`, { partitions: 1, replicationFactor: 1 });
  await tide.admin().createTopic(`${name}-doubled`, { partitions: 1, replicationFactor: 1 });
  const producer = tide.producer();
  await producer.send(
    `${name}-orders`,
    values.map((value, i) => ({ key: String.fromCharCode(97 + i), value })),
  );
  await producer.close();
}

const header = (r: ConsumerRecord, key: string) => r.headers.find((h) => h.key === key)?.value?.toString();

/** A logger at `level` whose lines the test reads, parsed. */
function captured(level: 'warn' | 'error') {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level,
    destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
  });
  return { lines, logger };
}

it.each(['atLeastOnce', 'exactlyOnce'] as const)(
  '%s: a dead-letter topic takes unreadable and failing records as produced; the rest is processed',
  async (guarantee) => {
    const name = `errs-dlq-${guarantee.toLowerCase()}`;
    const isolation = guarantee === 'exactlyOnce' ? 'read_committed' : 'read_uncommitted';
    await topics(name, 'orders', 'doubled', 'dlq');
    const producer = tide.producer();
    // Where each bad record went: value → [partition, offset].
    const bad = new Map<string, [number, number]>();
    for (let i = 0; i < 30; i++) {
      const value =
        i % 10 === 3
          ? `{"amount":${i}`
          : i % 10 === 7
            ? JSON.stringify({ amount: -i })
            : JSON.stringify({ amount: i });
      const { partition, offset } = await producer.send(`${name}-orders`, { key: `k${i}`, value });
      if (i % 10 === 3 || i % 10 === 7) bad.set(value, [partition, offset]);
    }
    await producer.close();
    const doubled = await tail(`${name}-doubled`, isolation);
    const dead = await tail(`${name}-dlq`, isolation);
    const policies = {
      deserializationErrors: { deadLetterTopic: `${name}-dlq` },
      processingErrors: { deadLetterTopic: `${name}-dlq` },
    };
    const app = doubler(name, policies, guarantee);
    await app.start();
    await waitFor(() => doubled.length === 24 && dead.length === 6, {
      timeoutMs: 60_000,
      what: `24 doubled and 6 dead letters (have ${doubled.length} and ${dead.length})`,
    });
    expect(new Set(doubled.map((r) => r.key!.toString()))).toEqual(
      new Set(
        Array.from({ length: 30 }, (_, i) => i)
          .filter((i) => i % 10 !== 3 && i % 10 !== 7)
          .map((i) => `k${i}`),
      ),
    );
    for (const r of dead) {
      const value = r.value!.toString();
      const [partition, offset] = bad.get(value)!;
      expect(header(r, '__streams.errors.topic')).toBe(`${name}-orders`);
      expect(header(r, '__streams.errors.partition')).toBe(String(partition));
      expect(header(r, '__streams.errors.offset')).toBe(String(offset));
      expect(header(r, '__streams.errors.exception')).toBe(
        value.includes('-') ? 'RangeError' : 'StreamsError',
      );
    }
    expect(new Set(dead.map((r) => r.value!.toString()))).toEqual(new Set(bad.keys()));
    expect(app.metrics().droppedRecords).toBe(6);
    expect(app.error()).toBeUndefined();

    // The skipped records' offsets were committed with the rest: a new instance reads nothing again.
    await app.close();
    const again = doubler(name, policies, guarantee);
    await again.start();
    await waitFor(() => again.taskIds().length === 2, { timeoutMs: 60_000, what: 'both tasks back' });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(again.metrics().recordsIn).toBe(0);
    expect(dead).toHaveLength(6);
    expect(doubled).toHaveLength(24);
  },
);

it('without a policy the first unreadable record stops the application, saying where it is', async () => {
  const name = 'errs-fail';
  await onePartitionOf(name, ['{"amount":1}', 'oops', '{"amount":3}']);
  const doubled = await tail(`${name}-doubled`);
  const app = doubler(name, {});
  await app.start();
  await waitFor(() => app.error() !== undefined, { timeoutMs: 60_000, what: 'the application stopped' });
  expect(app.error()!.message).toMatch(/errs-fail-orders-0 at offset 1: serde json could not read 4 bytes/);
  await new Promise((r) => setTimeout(r, 500));
  expect(doubled.map((r) => r.key!.toString())).not.toContain('c');
});

it("without a policy a processor's error stops the application; the log names the record", async () => {
  const name = 'errs-throw';
  await onePartitionOf(name, ['{"amount":1}', '{"amount":-2}']);
  const { lines, logger } = captured('error');
  const app = doubler(name, { logger });
  await app.start();
  await waitFor(() => app.error() !== undefined, { timeoutMs: 60_000, what: 'the application stopped' });
  expect(app.error()).toBeInstanceOf(RangeError);
  expect(lines.find((l) => String(l.msg).startsWith('processing a record failed'))).toMatchObject({
    task: '0_0',
    topic: `${name}-orders`,
    partition: 0,
    offset: 1,
  });
});

it('a dead-letter topic that does not exist fails start() with its name', async () => {
  const name = 'errs-missing';
  await topics(name, 'orders', 'doubled');
  const app = doubler(name, { deserializationErrors: { deadLetterTopic: `${name}-nowhere` } });
  await expect(app.start()).rejects.toThrow(/errs-missing-nowhere do(es)? not exist/);
});

describe('a wall-clock punctuation that throws', () => {
  /** Passes orders on; every 100 ms of wall-clock time its punctuation throws. */
  function sweeper(name: string, processingErrors: RecordErrorPolicy, logger: Logger): StreamsApp {
    const b = tide.streams({ applicationId: name });
    b.stream(`${name}-orders`, { key: Serdes.string, value: Serdes.string })
      .process<string, string>(
        () => {
          let ctx!: ProcessorContext;
          return {
            init(c) {
              ctx = c;
              c.schedule(100, 'wallClock', () => {
                throw new Error('sweep failed');
              });
            },
            process(r) {
              ctx.forward(r);
            },
          };
        },
        { name: 'sweeper' },
      )
      .to(`${name}-doubled`, { key: Serdes.string, value: Serdes.string });
    const app = b.app(b.build(), {
      commitIntervalMs: 100,
      replicationFactor: 1,
      statusIntervalMs: 0,
      processingErrors,
      logger,
    });
    apps.push(app);
    return app;
  }

  it("'continue': passed over, counted and logged; records keep flowing", async () => {
    const name = 'errs-punct-continue';
    await onePartitionOf(name, ['x', 'y']);
    const out = await tail(`${name}-doubled`);
    const { lines, logger } = captured('warn');
    const app = sweeper(name, 'continue', logger);
    await app.start();
    await waitFor(() => out.length === 2 && app.metrics().failedPunctuations >= 3, {
      timeoutMs: 60_000,
      what: 'both records through and three failed punctuations',
    });
    expect(app.error()).toBeUndefined();
    expect(app.state).toBe('running');
    expect(
      lines.find((l) => String(l.msg).startsWith('punctuation failed and was passed over')),
    ).toMatchObject({
      task: '0_0',
      node: 'sweeper',
      punctuation: 'wallClock',
      error: 'sweep failed',
    });
  });

  it("'fail': the application stops, the log naming the processor", async () => {
    const name = 'errs-punct-fail';
    await onePartitionOf(name, ['x']);
    const { lines, logger } = captured('error');
    const app = sweeper(name, 'fail', logger);
    await app.start();
    await waitFor(() => app.error() !== undefined, { timeoutMs: 60_000, what: 'the application stopped' });
    expect(app.error()!.message).toBe('sweep failed');
    expect(lines.find((l) => String(l.msg).startsWith('a punctuation failed'))).toMatchObject({
      task: '0_0',
      node: 'sweeper',
      punctuation: 'wallClock',
    });
  });
});

describe('a record too large for its output topic', () => {
  /** Writes 'x' × size for each order; the output topic takes at most 2,000-byte batches. */
  async function padder(name: string, processingErrors: RecordErrorPolicy | undefined, logger?: Logger) {
    await tide.admin().createTopic(`${name}-orders`, { partitions: 1, replicationFactor: 1 });
    await tide.admin().createTopic(`${name}-padded`, {
      partitions: 1,
      replicationFactor: 1,
      configs: { 'max.message.bytes': '2000' },
    });
    await tide.admin().createTopic(`${name}-dlq`, { partitions: 1, replicationFactor: 1 });
    const producer = tide.producer();
    await producer.send(
      `${name}-orders`,
      [10, 5_000, 20, 3_000, 30].map((size, i) => ({ key: `k${i}`, value: String(size) })),
    );
    await producer.close();
    const b = tide.streams({ applicationId: name });
    b.stream(`${name}-orders`, { key: Serdes.string, value: Serdes.string })
      .mapValues((size) => 'x'.repeat(Number(size)))
      .to(`${name}-padded`, { key: Serdes.string, value: Serdes.string });
    const app = b.app(b.build(), {
      commitIntervalMs: 100,
      replicationFactor: 1,
      statusIntervalMs: 0,
      ...(processingErrors ? { processingErrors } : {}),
      ...(logger ? { logger } : {}),
    });
    apps.push(app);
    return app;
  }

  it('is a processing error of its input record: a dead-letter topic takes the input, the rest flows', async () => {
    const name = 'errs-big-dlq';
    const app = await padder(name, { deadLetterTopic: 'errs-big-dlq-dlq' });
    const padded = await tail(`${name}-padded`);
    const dead = await tail(`${name}-dlq`);
    await app.start();
    await waitFor(() => padded.length === 3 && dead.length === 2, {
      timeoutMs: 60_000,
      what: `3 padded and 2 dead letters (have ${padded.length} and ${dead.length})`,
    });
    expect(padded.map((r) => r.value!.length)).toEqual([10, 20, 30]);
    expect(dead.map((r) => [r.key!.toString(), r.value!.toString()])).toEqual([
      ['k1', '5000'],
      ['k3', '3000'],
    ]);
    expect(header(dead[0], '__streams.errors.exception')).toBe('StreamsError');
    expect(header(dead[0], '__streams.errors.message')).toMatch(
      /a record of 50\d\d bytes for topic errs-big-dlq-padded exceeds its max.message.bytes \(2000\)/,
    );
    expect(header(dead[0], '__streams.errors.offset')).toBe('1');
    expect(app.metrics().droppedRecords).toBe(2);
    expect(app.error()).toBeUndefined();
  });

  it('without a policy it stops the application, naming the record, before anything after it is written', async () => {
    const name = 'errs-big-fail';
    const { lines, logger } = captured('error');
    const app = await padder(name, undefined, logger);
    const padded = await tail(`${name}-padded`);
    await app.start();
    await waitFor(() => app.error() !== undefined, { timeoutMs: 60_000, what: 'the application stopped' });
    expect(app.error()).toMatchObject({ kind: 'RECORD_TOO_LARGE', code: 'MESSAGE_TOO_LARGE' });
    expect(lines.find((l) => String(l.msg).startsWith('processing a record failed'))).toMatchObject({
      topic: `${name}-orders`,
      partition: 0,
      offset: 1,
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(padded.map((r) => r.key!.toString())).not.toContain('k2');
  });
});
