/**
 * A real `tide dev` process on a free loopback port, driven through the TypeScript client:
 * produce/consume round trips, replay by offset and time, restart durability, and bad input that
 * gets a clear error and loses nothing.
 */
import * as fs from 'fs';
import * as grpc from '@grpc/grpc-js';
import { Tide, TideError } from '../../client';
import { tideProto } from '../../services/common/grpc/proto';
import { encodeBatch } from '../../services/common/records';
import { makeTempDir, startTide, type TideProcess } from '../harness/processes';

jest.setTimeout(60_000);

let dataDir: string;
let node: TideProcess;
let tide: Tide;

async function restart(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  await tide.close();
  await node.stop(signal);
  node = await startTide(['dev', '--data', dataDir, '--port', '0']);
  tide = new Tide({ bootstrap: [node.address] });
}

async function expectTideError(promise: Promise<unknown>, code: string): Promise<TideError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TideError);
  expect((err as TideError).code).toBe(code);
  return err as TideError;
}

async function readAll(
  topic: string,
  partition: number,
  from = 0,
): Promise<{ offset: number; key: string | null; value: string | null }[]> {
  const out: { offset: number; key: string | null; value: string | null }[] = [];
  const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  let offset = from;
  for (;;) {
    const result = await consumer.fetch({ topic, partition }, offset, { maxWaitMs: 0 });
    for (const r of result.records)
      out.push({ offset: r.offset, key: r.key?.toString() ?? null, value: r.value?.toString() ?? null });
    if (result.nextOffset >= result.highWatermark || result.records.length === 0) break;
    offset = result.nextOffset;
  }
  await consumer.close();
  return out;
}

beforeAll(async () => {
  dataDir = makeTempDir();
  node = await startTide(['dev', '--data', dataDir, '--port', '0']);
  tide = new Tide({ bootstrap: [node.address] });
});

afterAll(async () => {
  await tide?.close();
  await node?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('records come back in order with their keys, offsets and headers', async () => {
  await tide.admin().createTopic('orders', { partitions: 3 });
  const producer = tide.producer();
  const sent = await Promise.all(
    Array.from({ length: 300 }, (_, i) =>
      producer.send('orders', { key: `user-${i % 10}`, value: `v${i}`, headers: { n: String(i) } }),
    ),
  );
  await producer.close();
  for (const meta of sent) expect(meta.offset).toBeGreaterThanOrEqual(0);
  for (let p = 0; p < 3; p++) {
    const records = await readAll('orders', p);
    const expected = sent.filter((m) => m.partition === p);
    expect(records.map((r) => r.offset)).toEqual(expected.map((_, i) => i));
    const values = records.map((r) => Number(r.value!.slice(1)));
    expect(values).toEqual([...values].sort((a, b) => a - b));
  }
  // The same key always lands on the same partition.
  const byKey = new Map<string, Set<number>>();
  sent.forEach((m, i) =>
    byKey.set(`user-${i % 10}`, (byKey.get(`user-${i % 10}`) ?? new Set()).add(m.partition)),
  );
  for (const partitions of byKey.values()) expect(partitions.size).toBe(1);
});

test('a consumer replays from an offset and from a timestamp', async () => {
  await tide.admin().createTopic('replay', { partitions: 1 });
  const producer = tide.producer();
  const t0 = Date.now();
  for (let i = 0; i < 5; i++)
    await producer.send('replay', { value: `early-${i}`, timestampMs: t0 - 60_000 + i });
  for (let i = 0; i < 5; i++) await producer.send('replay', { value: `late-${i}`, timestampMs: t0 + i });
  await producer.close();

  const consumer = tide.consumer();
  consumer.assign([{ topic: 'replay', partition: 0 }]);
  await consumer.seekToTimestamp(t0);
  const fromTime: string[] = [];
  for await (const record of consumer) {
    fromTime.push(record.value!.toString());
    if (fromTime.length === 5) break;
  }
  expect(fromTime).toEqual(['late-0', 'late-1', 'late-2', 'late-3', 'late-4']);
  consumer.seek({ topic: 'replay', partition: 0 }, 3);
  const fromOffset: number[] = [];
  for await (const record of consumer) {
    fromOffset.push(record.offset);
    if (fromOffset.length === 3) break;
  }
  expect(fromOffset).toEqual([3, 4, 5]);
  await consumer.close();
});

test("a producer keeps its batches within the topic's max.message.bytes (told in metadata)", async () => {
  await tide.admin().createTopic('small-batches', {
    partitions: 1,
    configs: { 'max.message.bytes': '65536' },
  });
  expect((await tide.cluster.topicMetadata('small-batches')).maxMessageBytes).toBe(65536);
  const producer = tide.producer(); // batchBytes 1 MiB by default
  const values = Array.from({ length: 5_000 }, (_, i) => Buffer.alloc(100, 97 + (i % 26)));
  // ~560 KB in one call: one default batch would be refused as MESSAGE_TOO_LARGE.
  const sent = await producer.sendBatch('small-batches', values, { partition: 0 });
  await producer.close();
  expect(sent.count).toBe(5_000);
  const consumer = tide.consumer();
  const end = await consumer.listOffset({ topic: 'small-batches', partition: 0 }, 'latest');
  await consumer.close();
  expect(end.offset).toBe(5_000);
});

test('acknowledged records survive a clean restart and a SIGKILL', async () => {
  await tide.admin().createTopic('durable', { partitions: 2, configs: { 'segment.bytes': '4096' } });
  const producer = tide.producer({ acks: 'all' });
  await producer.send(
    'durable',
    Array.from({ length: 500 }, (_, i) => ({ value: `a${i}`, partition: i % 2 })),
  );
  await producer.close();
  await restart('SIGTERM');
  const producer2 = tide.producer({ acks: 'all' });
  await producer2.send(
    'durable',
    Array.from({ length: 500 }, (_, i) => ({ value: `b${i}`, partition: i % 2 })),
  );
  await producer2.close();
  await restart('SIGKILL');
  for (let p = 0; p < 2; p++) {
    const records = await readAll('durable', p);
    expect(records).toHaveLength(500);
    expect(records.map((r) => r.offset)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(records[0].value).toBe(`a${p}`);
    expect(records[499].value).toBe(`b${498 + p}`);
  }
  expect((await tide.admin().listTopics()).sort()).toEqual(
    expect.arrayContaining(['durable', 'orders', 'replay']),
  );
});

describe('bad input gets a clear error and changes nothing', () => {
  let broker: InstanceType<ReturnType<typeof tideProto>['Broker']>;
  const call = <Req, Res>(method: string, request: Req): Promise<Res> =>
    new Promise((resolve, reject) =>
      (
        broker as unknown as Record<
          string,
          (r: Req, cb: (e: grpc.ServiceError | null, r: Res) => void) => void
        >
      )[method](request, (e, r) => (e ? reject(e) : resolve(r))),
    );

  beforeAll(async () => {
    await tide.admin().createTopic('guarded', { partitions: 1, configs: { 'max.message.bytes': '2048' } });
    await tide.producer().send('guarded', { value: 'kept' });
    broker = new (tideProto().Broker)(node.address, grpc.credentials.createInsecure());
  });
  afterAll(() => broker.close());

  async function unchanged(): Promise<void> {
    expect(await readAll('guarded', 0)).toEqual([{ offset: 0, key: null, value: 'kept' }]);
  }

  test('unknown topic and partition', async () => {
    await expectTideError(
      tide.producer({ retry: { attempts: 1 } }).send('nope', { value: 'x' }),
      'UNKNOWN_TOPIC',
    );
    const err = await call<object, unknown>('Produce', {
      topic: 'guarded',
      partition: 7,
      records: [{ value: Buffer.from('x') }],
    }).catch((e: grpc.ServiceError) => e);
    expect((err as grpc.ServiceError).metadata.get('tide-error-code')).toEqual(['UNKNOWN_PARTITION']);
    await unchanged();
  });

  test('a batch with a bad CRC is refused', async () => {
    const batch = encodeBatch([{ key: null, value: Buffer.from('evil') }]);
    batch[batch.length - 1] ^= 0xff;
    const err = (await call('Produce', { topic: 'guarded', partition: 0, record_batches: batch }).catch(
      (e) => e,
    )) as grpc.ServiceError;
    expect(err.metadata.get('tide-error-code')).toEqual(['CORRUPT_MESSAGE']);
    await unchanged();
  });

  test('garbage bytes are INVALID_RECORD', async () => {
    const err = (await call('Produce', {
      topic: 'guarded',
      partition: 0,
      record_batches: Buffer.from('not a record batch at all'),
    }).catch((e) => e)) as grpc.ServiceError;
    expect(err.metadata.get('tide-error-code')).toEqual(['INVALID_RECORD']);
    expect(err.details).toMatch(/INVALID_RECORD/);
    await unchanged();
  });

  test('a record larger than max.message.bytes is MESSAGE_TOO_LARGE', async () => {
    const err = (await call('Produce', {
      topic: 'guarded',
      partition: 0,
      records: [{ value: Buffer.alloc(4096, 1) }],
    }).catch((e) => e)) as grpc.ServiceError;
    expect(err.metadata.get('tide-error-code')).toEqual(['MESSAGE_TOO_LARGE']);
    await unchanged();
  });

  test('a request larger than the broker limit is refused', async () => {
    const err = (await call('Produce', {
      topic: 'guarded',
      partition: 0,
      records: [{ value: Buffer.alloc(17 * 1024 * 1024, 1) }],
    }).catch((e) => e)) as grpc.ServiceError;
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    await unchanged();
  });

  test('both or neither of records and record_batches', async () => {
    const err = (await call('Produce', { topic: 'guarded', partition: 0 }).catch(
      (e) => e,
    )) as grpc.ServiceError;
    expect(err.metadata.get('tide-error-code')).toEqual(['INVALID_REQUEST']);
    await unchanged();
  });

  test('reads outside the log are OFFSET_OUT_OF_RANGE', async () => {
    const err = (await call('Fetch', { topic: 'guarded', partition: 0, offset: 99 }).catch(
      (e) => e,
    )) as grpc.ServiceError;
    expect(err.metadata.get('tide-error-code')).toEqual(['OFFSET_OUT_OF_RANGE']);
    const negative = (await call('Fetch', { topic: 'guarded', partition: 0, offset: -1 }).catch(
      (e) => e,
    )) as grpc.ServiceError;
    expect(negative.metadata.get('tide-error-code')).toEqual(['OFFSET_OUT_OF_RANGE']);
  });

  test('invalid topic names and configs', async () => {
    await expectTideError(tide.admin().createTopic('bad name!', { partitions: 1 }), 'INVALID_TOPIC');
    await expectTideError(tide.admin().createTopic('x'.repeat(250), { partitions: 1 }), 'INVALID_TOPIC');
    await expectTideError(tide.admin().createTopic('ok-name', { partitions: 0 }), 'INVALID_PARTITIONS');
    await expectTideError(
      tide.admin().createTopic('ok-name', { partitions: 1, configs: { 'retention.mss': '1' } }),
      'INVALID_CONFIG',
    );
    await expectTideError(tide.admin().createTopic('guarded', { partitions: 1 }), 'TOPIC_ALREADY_EXISTS');
    await expectTideError(
      tide.admin().alterConfigs('guarded', { set: { 'retention.ms': 'soon' } }),
      'INVALID_CONFIG',
    );
    expect(await tide.admin().listTopics()).not.toContain('ok-name');
    await unchanged();
  });
});

test('portable records: plain protobuf produce and fetch', async () => {
  await tide.admin().createTopic('portable', { partitions: 1 });
  const broker = new (tideProto().Broker)(node.address, grpc.credentials.createInsecure());
  const produced = await new Promise<{ base_offset: number }>((resolve, reject) =>
    broker.Produce(
      {
        topic: 'portable',
        partition: 0,
        records: [
          {
            key: Buffer.from('k'),
            value: Buffer.from('v1'),
            headers: [{ key: 'h', value: Buffer.from('1') }],
          },
          { value: Buffer.from('v2') },
        ],
      },
      (e, r) => (e ? reject(e) : resolve(r!)),
    ),
  );
  expect(produced.base_offset).toBe(0);
  const fetched = await new Promise<{
    records: { key?: Buffer; value?: Buffer; offset: number; headers: { key: string }[] }[];
  }>((resolve, reject) =>
    broker.Fetch({ topic: 'portable', partition: 0, offset: 0 }, (e, r) => (e ? reject(e) : resolve(r!))),
  );
  expect(fetched.records.map((r) => [r.offset, r.key?.toString() ?? null, r.value?.toString()])).toEqual([
    [0, 'k', 'v1'],
    [1, null, 'v2'],
  ]);
  expect(fetched.records[0].headers[0].key).toBe('h');
  broker.close();
});

test('WatchMetadata pushes a new topic to a watching client without polling', async () => {
  const broker = new (tideProto().Broker)(node.address, grpc.credentials.createInsecure());
  const call = broker.WatchMetadata({ topics: [] });
  const seen: string[][] = [];
  let firstSeen!: () => void;
  const first = new Promise<void>((resolve) => (firstSeen = resolve));
  const sawTopic = new Promise<void>((resolve) =>
    call.on('data', (response: { topics: { name: string }[] }) => {
      seen.push(response.topics.map((t) => t.name));
      firstSeen();
      if (response.topics.some((t) => t.name === 'watched')) resolve();
    }),
  );
  call.on('error', () => undefined);
  await first;
  expect(seen[0]).not.toContain('watched');
  await tide.admin().createTopic('watched', { partitions: 2 });
  await sawTopic;
  call.cancel();
  broker.close();
});
