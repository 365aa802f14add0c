/**
 * Bad input against a real `tide dev` process, through plain grpc-js clients (as any language's
 * client would send it): every request that used to crash, wedge or poison a broker gets a prompt
 * error, and what the broker acknowledges stays readable. Issue #12, "Bad input that breaks things
 * today".
 */
import * as fs from 'fs';
import * as grpc from '@grpc/grpc-js';
import { Tide } from '../../client';
import { tideProto } from '../../services/common/grpc/proto';
import { encodeBatch, writeBatchCrc } from '../../services/common/records';
import { makeTempDir, startTide, waitFor, type TideProcess } from '../harness/processes';
import { TestCluster } from '../harness/cluster';

jest.setTimeout(120_000);

let dataDir: string;
let node: TideProcess;
let broker: InstanceType<ReturnType<typeof tideProto>['Broker']>;
let admin: InstanceType<ReturnType<typeof tideProto>['Admin']>;

/** A client with grpc-js defaults except that it may send and receive large messages. */
const BIG = { 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': -1 };

type Unary = (request: unknown, callback: (err: grpc.ServiceError | null, res: unknown) => void) => void;

function call(client: grpc.Client, method: string, request: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, Unary>)[method].bind(client);
    fn(request, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

async function failure(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!err) throw new Error('the call succeeded');
  return err as grpc.ServiceError;
}

/** Opens a FetchStream and resolves with the first message or the status that ends it. */
function firstOfStream(
  request: unknown,
  client = broker,
): Promise<{ message?: Record<string, unknown>; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    const stream = client.FetchStream(request as never);
    stream.on('data', (message: Record<string, unknown>) => {
      resolve({ message });
      stream.cancel();
    });
    stream.on('error', (error: grpc.ServiceError) => resolve({ error }));
    stream.on('end', () => resolve({}));
  });
}

beforeAll(async () => {
  dataDir = makeTempDir();
  node = await startTide(['dev', '--data', dataDir, '--port', '0']);
  broker = new (tideProto().Broker)(node.address, grpc.credentials.createInsecure(), BIG);
  admin = new (tideProto().Admin)(node.address, grpc.credentials.createInsecure(), BIG);
  await call(admin, 'CreateTopic', { name: 'hard', partitions: 2 });
  await call(broker, 'Produce', {
    topic: 'hard',
    partition: 0,
    acks: 'ACKS_ALL',
    records: [{ value: Buffer.from('first') }, { value: Buffer.from('second') }],
  });
});

afterAll(async () => {
  broker?.close();
  admin?.close();
  await node?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('FetchStream requests that never answered end at once with INVALID_ARGUMENT', () => {
  const ok = { topic: 'hard', partition: 0, offset: 0 };
  test.each([
    ['offset -5', { positions: [{ ...ok, offset: -5 }] }],
    ['offset 2^62', { positions: [{ ...ok, offset: '4611686018427387904' }] }],
    ['no positions', { positions: [] }],
    ['max_bytes -1', { positions: [ok], max_bytes: -1 }],
    ['partition -1', { positions: [{ ...ok, partition: -1 }] }],
    ['an empty topic name', { positions: [{ ...ok, topic: '' }] }],
    ['format 9', { positions: [ok], format: 9 }],
    ['the same partition twice', { positions: [ok, { ...ok, offset: 1 }] }],
    [
      'more positions than the limit',
      { positions: Array.from({ length: 1_001 }, (_, i) => ({ ...ok, partition: i })) },
    ],
    ['20,000 copies of one position', { positions: Array.from({ length: 20_000 }, () => ok) }],
  ])('%s', async (_what, request) => {
    const { error, message } = await firstOfStream(request);
    expect(message).toBeUndefined();
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.metadata.get('tide-error-code')).toEqual(['INVALID_REQUEST']);
  });

  test('a valid stream still delivers', async () => {
    const { message } = await firstOfStream({ positions: [{ topic: 'hard', partition: 0, offset: 0 }] });
    expect(message?.next_offset).toBe(2);
  });
});

describe('poison batches are refused, and the log stays readable', () => {
  function oneRecord(): Buffer {
    return encodeBatch([{ key: Buffer.from('k'), value: Buffer.from('v'), timestampMs: 1_700_000_000_000 }]);
  }

  test.each([
    [
      'recordCount and lastOffsetDelta say 1,000,000, one record present',
      (b: Buffer) => {
        b.writeInt32BE(999_999, 23); // lastOffsetDelta
        b.writeInt32BE(1_000_000, 57); // recordCount
      },
    ],
    [
      'flagged gzip, records not gzip',
      (b: Buffer) => {
        b.writeInt16BE(b.readInt16BE(21) | 1, 21);
      },
    ],
    [
      'a key length that runs past the record',
      (b: Buffer) => {
        // records start at 61: length, attributes, timestampDelta 0, offsetDelta 0, keyLength
        expect(b[65]).toBe(2); // zigzag(1)
        b[65] = 120; // zigzag(60)
      },
    ],
  ])('%s', async (_what, spoil) => {
    const batch = oneRecord();
    spoil(batch);
    writeBatchCrc(batch);
    const err = await failure(
      call(broker, 'Produce', { topic: 'hard', partition: 1, acks: 'ACKS_ALL', record_batches: batch }),
    );
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.metadata.get('tide-error-code')).toEqual(['INVALID_RECORD']);
    const read = (await call(broker, 'Fetch', { topic: 'hard', partition: 1, offset: 0 })) as {
      high_watermark: number;
    };
    expect(read.high_watermark).toBe(0);
  });

  test('a consumer reads the partition from the beginning', async () => {
    await call(broker, 'Produce', { topic: 'hard', partition: 1, record_batches: oneRecord() });
    const tide = new Tide({ bootstrap: [node.address] });
    try {
      const result = await tide.consumer().fetch({ topic: 'hard', partition: 1 }, 0, { maxWaitMs: 0 });
      expect(result.records.map((r) => r.value?.toString())).toEqual(['v']);
    } finally {
      await tide.close();
    }
  });
});

test('a 16 MiB batch accepted under max.message.bytes 32 MiB is readable in every format', async () => {
  await call(admin, 'CreateTopic', {
    name: 'huge',
    partitions: 1,
    configs: { 'max.message.bytes': String(32 * 1024 * 1024) },
  });
  const value = Buffer.alloc(16 * 1024 * 1024 - 256, 7);
  const batch = encodeBatch([{ key: null, value }]);
  await call(broker, 'Produce', { topic: 'huge', partition: 0, acks: 'ACKS_ALL', record_batches: batch });
  const batches = (await call(broker, 'Fetch', {
    topic: 'huge',
    partition: 0,
    offset: 0,
    format: 'RECORD_FORMAT_BATCHES',
  })) as { record_batches: Buffer };
  expect(batches.record_batches.length).toBe(batch.length);
  const records = (await call(broker, 'Fetch', { topic: 'huge', partition: 0, offset: 0 })) as {
    records: { value: Buffer }[];
  };
  expect(records.records[0].value.length).toBe(value.length);
  const { message, error } = await firstOfStream({
    positions: [{ topic: 'huge', partition: 0, offset: 0 }],
    format: 'RECORD_FORMAT_BATCHES',
  });
  expect(error).toBeUndefined();
  expect((message?.record_batches as Buffer).length).toBe(batch.length);
  // The TypeScript client, with its default options, reads it too.
  const tide = new Tide({ bootstrap: [node.address] });
  try {
    const result = await tide.consumer().fetch({ topic: 'huge', partition: 0 }, 0, { maxWaitMs: 0 });
    expect(result.records[0].value?.length).toBe(value.length);
  } finally {
    await tide.close();
  }
});

describe('errors do not echo huge input', () => {
  // grpc-js defaults: 8 KiB of metadata received, so an echoed 64 KiB name used to hide the error.
  let plain: InstanceType<ReturnType<typeof tideProto>['Admin']>;
  beforeAll(() => {
    plain = new (tideProto().Admin)(node.address, grpc.credentials.createInsecure());
  });
  afterAll(() => plain.close());

  test('a 64 KiB topic name', async () => {
    const err = await failure(call(plain, 'CreateTopic', { name: 'n'.repeat(64 * 1024), partitions: 1 }));
    expect(err.metadata.get('tide-error-code')).toEqual(['INVALID_TOPIC']);
    expect(err.details).toContain('(65536 characters)');
    expect(err.details.length).toBeLessThan(1_000);
  });

  test('a 1 MiB config value', async () => {
    const err = await failure(
      call(plain, 'CreateTopic', {
        name: 'configured',
        partitions: 1,
        configs: { 'retention.ms': '9'.repeat(1024 * 1024) },
      }),
    );
    expect(err.metadata.get('tide-error-code')).toEqual(['INVALID_CONFIG']);
    expect(err.details).toContain('(1048576 characters)');
  });

  test('a 64 KiB unknown topic on Fetch', async () => {
    const plainBroker = new (tideProto().Broker)(node.address, grpc.credentials.createInsecure());
    try {
      const err = await failure(call(plainBroker, 'Fetch', { topic: 't'.repeat(64 * 1024), offset: 0 }));
      expect(err.metadata.get('tide-error-code')).toEqual(['UNKNOWN_TOPIC']);
      expect(err.details.length).toBeLessThan(1_000);
    } finally {
      plainBroker.close();
    }
  });
});

describe('unknown enum values and negative timeouts are INVALID_ARGUMENT', () => {
  const produce = { topic: 'hard', partition: 1, records: [{ value: Buffer.from('x') }] };
  test.each([
    ['Produce', 'acks 7', { ...produce, acks: 7 }],
    ['Produce', 'acks -1', { ...produce, acks: -1 }],
    ['Produce', 'timeout_ms -1', { ...produce, timeout_ms: -1 }],
    ['Fetch', 'format 9', { topic: 'hard', partition: 0, offset: 0, format: 9 }],
    ['ListOffsets', 'spec 5', { topic: 'hard', partition: 0, spec: 5 }],
  ])('%s with %s', async (method, _what, request) => {
    const before = (await call(broker, 'ListOffsets', { topic: 'hard', partition: 1 })) as { offset: number };
    const err = await failure(call(broker, method, request));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.metadata.get('tide-error-code')).toEqual(['INVALID_REQUEST']);
    const after = (await call(broker, 'ListOffsets', { topic: 'hard', partition: 1 })) as { offset: number };
    expect(after.offset).toBe(before.offset);
  });
});

test('an oversized request is RESOURCE_EXHAUSTED with tide-error-code REQUEST_TOO_LARGE', async () => {
  const err = await failure(
    call(broker, 'Produce', {
      topic: 'hard',
      partition: 0,
      records: [{ value: Buffer.alloc(17 * 1024 * 1024, 1) }],
    }),
  );
  expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  expect(err.metadata.get('tide-error-code')).toEqual(['REQUEST_TOO_LARGE']);
  expect(err.metadata.get('tide-retriable')).toEqual(['false']);
});

describe('connections', () => {
  let limited: TideProcess;
  let limitedDir: string;
  beforeAll(async () => {
    limitedDir = makeTempDir();
    limited = await startTide(['dev', '--data', limitedDir, '--port', '0'], {
      env: {
        TIDE_CONNECTION_IDLE_TIMEOUT_MS: '1000',
        TIDE_MAX_CONNECTIONS_PER_PEER: '3',
        TIDE_MAX_STREAMS_PER_CONNECTION: '2',
      },
    });
  });
  afterAll(async () => {
    await limited?.stop();
    fs.rmSync(limitedDir, { recursive: true, force: true });
  });

  /** An Admin client sharing the channel of `client`. */
  function admin2(client: grpc.Client): grpc.Client {
    return new (tideProto().Admin)(limited.address, grpc.credentials.createInsecure(), {
      channelOverride: client.getChannel(),
    });
  }

  function channel(): grpc.Client {
    // A local subchannel pool: each client is its own TCP connection.
    return new (tideProto().Admin)(limited.address, grpc.credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
    });
  }

  test('an idle connection is closed by the server', async () => {
    const client = channel();
    try {
      await call(client, 'ListTopics', {});
      expect(client.getChannel().getConnectivityState(false)).toBe(grpc.connectivityState.READY);
      await waitFor(
        async () => client.getChannel().getConnectivityState(false) !== grpc.connectivityState.READY,
        { what: 'the server to close the idle connection', timeoutMs: 30_000 },
      );
    } finally {
      client.close();
    }
  });

  test('connections past the per-peer cap are closed', async () => {
    // The cap is 3 per IP address; tide dev's own coordinator also connects from 127.0.0.1, so
    // of four more connections at least one must be refused, and none without the cap.
    const clients = Array.from(
      { length: 4 },
      () =>
        new (tideProto().Broker)(limited.address, grpc.credentials.createInsecure(), {
          'grpc.use_local_subchannel_pool': 1,
        }),
    );
    try {
      const results = await Promise.all(
        clients.map((client) =>
          call(client, 'Metadata', {}).then(
            () => 'ok',
            (err: grpc.ServiceError) => err.code,
          ),
        ),
      );
      expect(results.filter((r) => r !== 'ok').length).toBeGreaterThan(0);
      expect(results).toContain('ok');
    } finally {
      for (const c of clients) c.close();
    }
  });

  test('calls past the per-connection stream cap wait for a free stream', async () => {
    const client = new (tideProto().Broker)(limited.address, grpc.credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
    });
    const streams: grpc.ClientReadableStream<unknown>[] = [];
    try {
      // The connection may be refused for a moment (the previous test filled the per-peer cap and
      // the server has not seen those connections close yet): create the topic until it exists,
      // then wait until both partitions are served (a stream opened before its partition is
      // served ends at once and frees its slot).
      await waitFor(
        async () => {
          await call(admin2(client), 'CreateTopic', { name: 'capped', partitions: 2 }).catch(
            (err: grpc.ServiceError) => {
              if (err.code !== grpc.status.ALREADY_EXISTS) throw err;
            },
          );
          for (const partition of [0, 1])
            await call(client, 'ListOffsets', { topic: 'capped', partition, timestamp_ms: -1 });
          return true;
        },
        { what: 'both partitions of capped to be served', timeoutMs: 30_000 },
      );
      const ended: string[] = [];
      for (const partition of [0, 1]) {
        const stream = client.FetchStream({
          positions: [{ topic: 'capped', partition, offset: 0 }],
        } as never);
        stream.on('error', (err: grpc.ServiceError) => ended.push(`partition ${partition}: ${err.message}`));
        stream.on('end', () => ended.push(`partition ${partition}: ended`));
        streams.push(stream);
      }
      await waitFor(
        async () => client.getChannel().getConnectivityState(false) === grpc.connectivityState.READY,
        {
          what: 'the connection',
        },
      );
      // Both streams are open and idle; a third call on the connection gets no stream.
      const third = await failure(
        new Promise((resolve, reject) =>
          client.Metadata({}, { deadline: Date.now() + 2_000 }, (err, res) =>
            err ? reject(err) : resolve(res),
          ),
        ),
      );
      expect({ ended, code: third.code }).toEqual({ ended: [], code: grpc.status.DEADLINE_EXCEEDED });
      streams.shift()!.cancel();
      await call(client, 'Metadata', {});
    } finally {
      for (const stream of streams) stream.cancel();
      client.close();
    }
  });
});

test('a 16 MiB batch is replicated: acks=all completes and a follower can serve it after failover', async () => {
  const cluster = await TestCluster.start({ brokers: 2, controllers: 1 });
  try {
    const client = new (tideProto().Admin)(cluster.broker(0).address, grpc.credentials.createInsecure(), BIG);
    await call(client, 'CreateTopic', {
      name: 'huge-replicated',
      partitions: 1,
      replication_factor: 2,
      configs: { 'max.message.bytes': String(32 * 1024 * 1024), 'min.insync.replicas': '2' },
    });
    client.close();
    const tide = new Tide({
      bootstrap: cluster.bootstrap(),
      connection: { maxMessageBytes: 64 * 1024 * 1024 },
    });
    try {
      const meta = await tide.admin().metadata(['huge-replicated']);
      const leader = meta.topics[0].partitions[0].leader;
      const leaderAddress = cluster.broker(leader).address;
      const raw = new (tideProto().Broker)(leaderAddress, grpc.credentials.createInsecure(), BIG);
      const batch = encodeBatch([{ key: null, value: Buffer.alloc(16 * 1024 * 1024 - 256, 3) }]);
      // The follower must fetch a response larger than its broker's 16 MiB request limit.
      await call(raw, 'Produce', {
        topic: 'huge-replicated',
        partition: 0,
        acks: 'ACKS_ALL',
        timeout_ms: 60_000,
        record_batches: batch,
      });
      raw.close();
      await cluster.broker(leader).stop('SIGKILL');
      const follower = cluster.broker(1 - leader).address;
      const survivor = new (tideProto().Broker)(follower, grpc.credentials.createInsecure(), BIG);
      try {
        const read = await waitFor(
          () =>
            call(survivor, 'Fetch', {
              topic: 'huge-replicated',
              partition: 0,
              offset: 0,
              format: 'RECORD_FORMAT_BATCHES',
            }).then((r) => r as { record_batches: Buffer }),
          { what: 'the follower leading and serving the batch', timeoutMs: 60_000 },
        );
        expect(read.record_batches.length).toBe(batch.length);
      } finally {
        survivor.close();
      }
    } finally {
      await tide.close();
    }
  } finally {
    await cluster.stop();
  }
});
