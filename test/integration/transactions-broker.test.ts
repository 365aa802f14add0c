/**
 * Transactions on the partition leaders, against real processes: etcd, a controller, three
 * brokers (RF=3) and a coordinator. The test plays the transaction coordinator's marker side: it
 * takes producer ids from InitTransactions (a long timeout, so the coordinator never ends them
 * itself), writes transactional batches (record codec, transactional bit) with Produce and the
 * transactional id (the leader joins the partition to the transaction at the coordinator, KIP-890),
 * and ends them with raw WriteTxnMarkers calls (COMMIT or ABORT, the bumped epoch, the internal
 * token).
 *
 * Checked: read_committed consumers (FetchStream and unary Fetch of the TypeScript client, and the
 * portable RECORDS format) get exactly the committed records and stop at the LSO of an open
 * transaction; read_uncommitted ones get every data record and no control record. Then the leader
 * is SIGKILLed: the new leader serves the same read_committed view (markers, open transactions and
 * the aborted index were replicated). Then every broker is SIGKILLed and restarted: recovery
 * rebuilds the LSO (an open transaction still holds it) and the aborted index from the logs.
 */
import * as grpc from '@grpc/grpc-js';
import { Tide } from '../../client';
import { ensureInternalToken } from '../../services/common/cluster/internal-token';
import { silentLogger } from '../../services/common/logger';
import { EtcdMetadataStore } from '../../services/common/metadata/etcd';
import { tideProto } from '../../services/common/grpc/proto';
import { fromGrpcError } from '../../services/common/grpc/status';
import { txnMarkersProto } from '../../services/common/grpc/txn-markers-proto';
import { transactionsProto } from '../../services/common/grpc/transactions-proto';
import { INTERNAL_TOKEN_HEADER } from '../../services/common/grpc/routing-headers';
import { encodeBatch } from '../../services/common/records';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';

jest.setTimeout(240_000);

const TOPIC = 'txn';
let cluster: TestCluster;
let tide: Tide;
let token: string;

type Unary = (
  request: unknown,
  metadata: grpc.Metadata,
  callback: (err: Error | null, res: unknown) => void,
) => void;

function call<T>(
  client: grpc.Client,
  method: string,
  request: unknown,
  metadata = new grpc.Metadata(),
): Promise<T> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, Unary>)[method].bind(client);
    fn(request, metadata, (err, res) => (err ? reject(err) : resolve(res as T)));
  });
}

function brokerClient(address: string): grpc.Client {
  return new (tideProto().Broker)(address, grpc.credentials.createInsecure());
}

/** The partition's leader as the metadata says now, once it is a live broker. */
async function leader(): Promise<number> {
  return waitFor(
    async () => {
      const meta = await tide.admin().metadata([TOPIC]);
      const id = meta.topics[0]?.partitions[0]?.leader ?? -1;
      const b = cluster.brokers.get(id);
      return b && b.child.exitCode === null && b.child.signalCode === null ? id + 1 : 0;
    },
    { what: 'a live leader', timeoutMs: 60_000, intervalMs: 200 },
  ).then((n) => n - 1);
}

/** Calls `method` on the current leader, retrying until it answers (leader changes, restarts). */
async function onLeader<T>(method: string, request: unknown): Promise<T> {
  return waitFor(
    async () => {
      const client = brokerClient(cluster.broker(await leader()).address);
      try {
        return await call<T>(client, method, request);
      } finally {
        client.close();
      }
    },
    { what: `${method} on the leader`, timeoutMs: 60_000, intervalMs: 200 },
  );
}

interface TxnProducer {
  transactionalId: string;
  id: number;
  epoch: number;
}

const sequences = new Map<number, number>();
async function produce(value: string, producer?: TxnProducer): Promise<void> {
  const seq = producer ? (sequences.get(producer.id) ?? 0) : -1;
  const batch = encodeBatch([{ key: null, value: Buffer.from(value) }], {
    ...(producer
      ? { producerId: producer.id, producerEpoch: producer.epoch, baseSequence: seq, transactional: true }
      : {}),
  });
  await onLeader('Produce', {
    topic: TOPIC,
    partition: 0,
    acks: 'ACKS_ALL',
    timeout_ms: 10_000,
    record_batches: batch,
    transactional_id: producer?.transactionalId ?? '',
  });
  if (producer) sequences.set(producer.id, seq + 1);
}

/** A transactional id at the coordinator (through a broker's relay), open for 15 minutes. */
async function initProducer(name: string): Promise<TxnProducer> {
  const transactionalId = `broker-test-${name}`;
  const r = await waitFor(
    async () => {
      const client = new (transactionsProto().TransactionCoordinator)(
        cluster.broker(await leader()).address,
        grpc.credentials.createInsecure(),
      );
      try {
        return await call<{ producer_id: string | number; producer_epoch: number }>(
          client,
          'InitTransactions',
          {
            transactional_id: transactionalId,
            transaction_timeout_ms: 900_000,
          },
        );
      } finally {
        client.close();
      }
    },
    { what: `InitTransactions of ${transactionalId}`, timeoutMs: 60_000, intervalMs: 200 },
  );
  return { transactionalId, id: Number(r.producer_id), epoch: r.producer_epoch };
}

/** One WriteTxnMarkers call to the leader for `producer` at `epoch`; the partition's error, if any. */
async function writeMarker(
  producer: { id: number },
  epoch: number,
  result: 'COMMIT' | 'ABORT',
  withToken = true,
): Promise<{ code: string; message: string } | undefined> {
  const metadata = new grpc.Metadata();
  if (withToken) metadata.set(INTERNAL_TOKEN_HEADER, token);
  const client = new (txnMarkersProto().TxnMarkers)(
    cluster.broker(await leader()).address,
    grpc.credentials.createInsecure(),
  );
  try {
    const response = await call<{ results: { error?: { code: string; message: string } }[] }>(
      client,
      'WriteTxnMarkers',
      {
        markers: [
          {
            producer_id: producer.id,
            producer_epoch: epoch,
            coordinator_epoch: 0,
            result: `TXN_RESULT_${result}`,
            partitions: [{ topic: TOPIC, partition: 0 }],
          },
        ],
        timeout_ms: 10_000,
      },
      metadata,
    );
    return response.results[0].error ?? undefined; // proto-loader gives null for an unset message
  } finally {
    client.close();
  }
}

/** WriteTxnMarkers with the bumped epoch (KIP-890), retried until the partition answers OK. */
async function endTxn(producer: { id: number; epoch: number }, result: 'COMMIT' | 'ABORT'): Promise<void> {
  await waitFor(
    async () => {
      const error = await writeMarker(producer, producer.epoch + 1, result);
      if (error) throw new Error(`${error.code}: ${error.message}`);
      return true;
    },
    { what: `${result} marker`, timeoutMs: 60_000, intervalMs: 200 },
  );
}

/** Every value a consumer at `isolation` reads with unary fetches from offset 0 until no progress. */
async function fetchAll(
  isolation: 'read_committed' | 'read_uncommitted',
): Promise<{ values: string[]; end: number }> {
  const consumer = tide.consumer({ isolation });
  try {
    const values: string[] = [];
    let offset = 0;
    for (;;) {
      const r = await consumer.fetch({ topic: TOPIC, partition: 0 }, offset, { maxWaitMs: 0 });
      for (const record of r.records) values.push(record.value?.toString() ?? '');
      if (r.nextOffset === offset) return { values, end: offset };
      offset = r.nextOffset;
    }
  } finally {
    await consumer.close();
  }
}

/** Values the streaming consumer delivers: `count` of them, then nothing more for 500 ms. */
async function streamValues(
  isolation: 'read_committed' | 'read_uncommitted',
  count: number,
): Promise<string[]> {
  const consumer = tide.consumer({ isolation });
  consumer.assign([{ topic: TOPIC, partition: 0, offset: 0 }]);
  const values: string[] = [];
  const iterator = consumer[Symbol.asyncIterator]();
  try {
    for (;;) {
      const wait = values.length < count ? 30_000 : 500;
      let timer: NodeJS.Timeout | undefined;
      const next = await Promise.race([
        iterator.next(),
        new Promise<'idle'>((resolve) => (timer = setTimeout(() => resolve('idle'), wait))),
      ]).finally(() => clearTimeout(timer));
      if (next === 'idle' || next.done) break;
      values.push(next.value.value?.toString() ?? '');
    }
    return values;
  } finally {
    await consumer.close();
  }
}

/** The portable format: the broker filters; no client-side filter is applied here. */
async function portableCommitted(): Promise<string[]> {
  const r = await onLeader<{ records: { value: Buffer }[]; next_offset: string }>('Fetch', {
    topic: TOPIC,
    partition: 0,
    offset: 0,
    max_bytes: 1 << 20,
    format: 'RECORD_FORMAT_RECORDS',
    isolation: 'ISOLATION_LEVEL_READ_COMMITTED',
  });
  return r.records.map((rec) => Buffer.from(rec.value).toString());
}

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 3, controllers: 1 });
  await cluster.startCoordinator('c1', {
    args: ['--shards', '4', '--offsets-partitions', '2'],
    env: { TIDE_TRANSACTION_STATE_PARTITIONS: '2' },
  });
  const store = new EtcdMetadataStore({ endpoints: [cluster.etcd.endpoint], logger: silentLogger() });
  try {
    token = await ensureInternalToken(store, 'tide');
  } finally {
    await store.close();
  }
  tide = new Tide({ bootstrap: cluster.bootstrap() });
  await tide.admin().createTopic(TOPIC, {
    partitions: 1,
    replicationFactor: 3,
    configs: { 'min.insync.replicas': '2' },
  });
});

afterAll(async () => {
  await tide?.close();
  await cluster?.stop();
});

test('read_committed hides aborted and open transactions, across a leader SIGKILL and a full crash', async () => {
  const a = await initProducer('a');
  const b = await initProducer('b');
  const c = await initProducer('c');
  await produce('p0'); // 0
  await produce('a1', a); // 1
  await produce('b1', b); // 2
  await produce('a2', a); // 3
  await produce('p1'); // 4
  await endTxn(a, 'COMMIT'); // 5
  await endTxn(b, 'ABORT'); // 6
  // A retried marker writes nothing; an older epoch is fenced; the call needs the internal token.
  expect(await writeMarker(a, a.epoch + 1, 'COMMIT')).toBeUndefined();
  expect(await writeMarker(b, b.epoch, 'ABORT')).toMatchObject({ code: 'PRODUCER_FENCED' });
  const unauthorized = await writeMarker(a, a.epoch + 1, 'COMMIT', false).catch((err: unknown) =>
    fromGrpcError(err),
  );
  expect(unauthorized).toMatchObject({ code: 'AUTHORIZATION_FAILED' });
  // A late batch of the ended transaction's epoch is refused (the marker bumped the epoch).
  const raw = brokerClient(cluster.broker(await leader()).address);
  try {
    const late = await call<{ error?: { code: string } }>(raw, 'Produce', {
      topic: TOPIC,
      partition: 0,
      acks: 'ACKS_ALL',
      record_batches: encodeBatch([{ key: null, value: Buffer.from('late') }], {
        producerId: b.id,
        producerEpoch: b.epoch,
        baseSequence: 1,
        transactional: true,
      }),
      transactional_id: b.transactionalId,
    }).then(
      (response) => response.error,
      (err: unknown) => fromGrpcError(err),
    );
    expect(late).toMatchObject({ code: 'INVALID_PRODUCER_EPOCH' });
  } finally {
    raw.close();
  }
  await produce('p2'); // 7
  await produce('c1', c); // 8: left open
  await produce('p3'); // 9

  const committed = ['p0', 'a1', 'a2', 'p1', 'p2'];
  const everything = ['p0', 'a1', 'b1', 'a2', 'p1', 'p2', 'c1', 'p3'];
  expect(await fetchAll('read_committed')).toEqual({ values: committed, end: 8 });
  expect((await fetchAll('read_uncommitted')).values).toEqual(everything);
  expect(await streamValues('read_committed', committed.length)).toEqual(committed);
  expect(await streamValues('read_uncommitted', everything.length)).toEqual(everything);
  expect(await portableCommitted()).toEqual(committed);
  const latest = await onLeader<{ offset: string; high_watermark: string; last_stable_offset: string }>(
    'ListOffsets',
    { topic: TOPIC, partition: 0, spec: 'OFFSET_SPEC_LATEST', isolation: 'ISOLATION_LEVEL_READ_COMMITTED' },
  );
  expect([Number(latest.offset), Number(latest.last_stable_offset), Number(latest.high_watermark)]).toEqual([
    8, 8, 10,
  ]);
  // DescribeTopic status comes from the partitions the answering broker leads: ask the leader.
  const admin = new (tideProto().Admin)(
    cluster.broker(await leader()).address,
    grpc.credentials.createInsecure(),
  );
  try {
    const described = await call<{ status: { last_stable_offset: string; high_watermark: string }[] }>(
      admin,
      'DescribeTopic',
      { name: TOPIC },
    );
    expect(described.status.map((st) => [Number(st.last_stable_offset), Number(st.high_watermark)])).toEqual([
      [8, 10],
    ]);
  } finally {
    admin.close();
  }

  // The leader dies: the new one has the markers, the open transaction and the aborted index.
  const first = await leader();
  await cluster.broker(first).stop('SIGKILL');
  await waitFor(async () => (await leader()) !== first, { what: 'a new leader', timeoutMs: 60_000 });
  expect(await fetchAll('read_committed')).toEqual({ values: committed, end: 8 });
  expect((await fetchAll('read_uncommitted')).values).toEqual(everything);
  await endTxn(c, 'ABORT'); // 10
  await produce('p4'); // 11
  const afterAbort = ['p0', 'a1', 'a2', 'p1', 'p2', 'p3', 'p4'];
  expect(await fetchAll('read_committed')).toEqual({ values: afterAbort, end: 12 });
  expect(await streamValues('read_committed', afterAbort.length)).toEqual(afterAbort);

  // A transaction left open, then every broker crashes and restarts: recovery rebuilds it all.
  await cluster.startBroker(first);
  const d = await initProducer('d');
  await produce('d1', d); // 12: open
  await produce('p5'); // 13
  await Promise.all([...cluster.brokers.values()].map((p) => p.stop('SIGKILL')));
  await tide.close();
  for (const id of [0, 1, 2]) await cluster.startBroker(id);
  tide = new Tide({ bootstrap: cluster.bootstrap() });
  await leader();
  expect(
    await waitFor(
      async () => {
        const view = await fetchAll('read_committed');
        return view.end === 12 ? view : undefined;
      },
      { what: 'the LSO at the open transaction after recovery', timeoutMs: 60_000 },
    ),
  ).toEqual({
    values: afterAbort,
    end: 12,
  });
  expect((await fetchAll('read_uncommitted')).values).toEqual([...everything, 'p4', 'd1', 'p5']);
  await endTxn(d, 'COMMIT'); // 14
  expect(await fetchAll('read_committed')).toEqual({ values: [...afterAbort, 'd1', 'p5'], end: 15 });
  expect(await portableCommitted()).toEqual([...afterAbort, 'd1', 'p5']);
});
