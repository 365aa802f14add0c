/**
 * Transactions on `tide dev`, the quick-start target: one process hosts the broker and the
 * coordinator (which hosts the transaction coordinator; `__transaction_state` with replication
 * factor 1). A committed transaction across two partitions is seen by read_committed, an aborted
 * one is not, and after a restart the transactional id is fenced and resumed from the persisted
 * state (the epoch moves on). Then the portable Produce path's `producer` field (plain records
 * that the broker builds into an idempotent or transactional batch) is checked and enforced, and
 * partitions join transactions at their leader (KIP-890): no AddPartitionsToTxn needed, and a
 * batch the coordinator has no open transaction for is refused before it is written.
 */
import * as fs from 'fs';
import * as grpc from '@grpc/grpc-js';
import { Tide } from '../../client';
import { tideProto } from '../../services/common/grpc/proto';
import { fromGrpcError } from '../../services/common/grpc/status';
import { encodeBatch } from '../../services/common/records';
import { makeTempDir, startTide, waitFor, type TideProcess } from '../harness/processes';

jest.setTimeout(90_000);

let dataDir: string;
let node: TideProcess;
let tide: Tide;
/** The identity the first test's producer ended with. */
let before: { producerId: string | number; producerEpoch: number };

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

/**
 * Waits until the id's last transaction has its markers everywhere: EndTxn answers once the end
 * is decided (the Prepare state durable), and the markers follow.
 */
async function completed(transactionalId: string): Promise<void> {
  await waitFor(
    async () =>
      /^Complete|^Empty/.test((await tide.transactions().describeTransaction(transactionalId)).state),
    { what: `the markers of ${transactionalId}`, timeoutMs: 20_000, intervalMs: 50 },
  );
}

/** Values read_committed hands out, from offset 0 up to the partition's end. */
async function readCommitted(topic: string, partition: number): Promise<string[]> {
  const consumer = tide.consumer({ isolation: 'read_committed' });
  try {
    const tp = { topic, partition };
    const end = (await consumer.listOffset(tp, 'latest')).offset;
    const values: string[] = [];
    for (let offset = 0; offset < end;) {
      const result = await consumer.fetch(tp, offset);
      for (const r of result.records) if (r.offset < end) values.push(String(r.value));
      if (result.nextOffset <= offset) throw new Error(`no progress at ${topic}/${partition}@${offset}`);
      offset = result.nextOffset;
    }
    return values;
  } finally {
    await consumer.close();
  }
}

it('commits and aborts a two-partition transaction; read_committed sees the committed one only', async () => {
  await tide.admin().createTopic('dev-txn', { partitions: 2 });
  const producer = tide.producer({ transactionalId: 'dev-writer' });
  await producer.initTransactions();
  const first = producer.producerIdentity!;
  await producer.transaction(async (tx) => {
    await tx.send('dev-txn', [{ value: 'c0' }], { partition: 0 });
    await tx.send('dev-txn', [{ value: 'c1' }], { partition: 1 });
  });
  producer.beginTransaction();
  await producer.send('dev-txn', [{ value: 'a0' }], { partition: 0 });
  await producer.send('dev-txn', [{ value: 'a1' }], { partition: 1 });
  await producer.abortTransaction();
  // Every transaction end bumps the epoch (KIP-890).
  expect(producer.producerIdentity!.producerEpoch).toBeGreaterThan(first.producerEpoch);
  before = producer.producerIdentity!;
  await producer.close();
  await completed('dev-writer');

  expect(await readCommitted('dev-txn', 0)).toEqual(['c0']);
  expect(await readCommitted('dev-txn', 1)).toEqual(['c1']);
});

it('after a restart the same transactional id goes on from the persisted state', async () => {
  await tide.close();
  await node.stop();
  node = await startTide(['dev', '--data', dataDir, '--port', '0']);
  tide = new Tide({ bootstrap: [node.address] });

  const producer = tide.producer({ transactionalId: 'dev-writer' });
  await producer.initTransactions();
  // The coordinator rebuilt the id's state from __transaction_state: same producer id, a later epoch.
  expect(String(producer.producerIdentity!.producerId)).toBe(String(before.producerId));
  expect(producer.producerIdentity!.producerEpoch).toBeGreaterThan(before.producerEpoch);
  await producer.transaction(async (tx) => {
    await tx.send('dev-txn', [{ value: 'after-restart' }], { partition: 0 });
  });
  await producer.close();
  await completed('dev-writer');
  expect(await readCommitted('dev-txn', 0)).toEqual(['c0', 'after-restart']);
});

type Unary = (request: unknown, callback: (err: Error | null, res: unknown) => void) => void;

/** A raw gRPC call to the dev node (any service), rejecting with the TideError the status carries. */
function rawCall<T>(
  service: 'Broker' | 'TransactionCoordinator',
  method: string,
  request: unknown,
): Promise<T> {
  const Client = (tideProto() as unknown as Record<string, typeof grpc.Client>)[service];
  const client = new Client(node.address, grpc.credentials.createInsecure());
  return new Promise<T>((resolve, reject) => {
    const fn = (client as unknown as Record<string, Unary>)[method].bind(client);
    fn(request, (err, res) => {
      client.close();
      if (err) reject(fromGrpcError(err as grpc.ServiceError));
      else resolve(res as T);
    });
  });
}

interface Produced {
  base_offset: number;
  last_offset: number;
}

const portable = (values: string[], producer?: object) => ({
  topic: 'dev-portable',
  partition: 0,
  acks: 'ACKS_ALL',
  records: values.map((v) => ({ value: Buffer.from(v) })),
  ...(producer ? { producer } : {}),
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (err: { code?: string }) => String(err.code),
  );
}

it('portable produce with a producer identity: checked, deduplicated, sequenced', async () => {
  await tide.admin().createTopic('dev-portable', { partitions: 1 });
  const { producer_id: producerId, producer_epoch: epoch } = await rawCall<{
    producer_id: number;
    producer_epoch: number;
  }>('Broker', 'InitProducerId', {});
  const identity = { producer_id: producerId, producer_epoch: epoch };

  const first = await rawCall<Produced>(
    'Broker',
    'Produce',
    portable(['a', 'b', 'c'], { ...identity, base_sequence: 0 }),
  );
  expect([first.base_offset, first.last_offset]).toEqual([0, 2]);
  // The same request again (a retry): answered as the duplicate it is, nothing appended.
  const again = await rawCall<Produced>(
    'Broker',
    'Produce',
    portable(['a', 'b', 'c'], { ...identity, base_sequence: 0 }),
  );
  expect([again.base_offset, again.last_offset]).toEqual([0, 2]);
  // A gap in the sequence (3 is next) is refused.
  expect(await codeOf(rawCall('Broker', 'Produce', portable(['x'], { ...identity, base_sequence: 5 })))).toBe(
    'OUT_OF_ORDER_SEQUENCE',
  );
  const next = await rawCall<Produced>(
    'Broker',
    'Produce',
    portable(['d'], { ...identity, base_sequence: 3 }),
  );
  expect([next.base_offset, next.last_offset]).toEqual([3, 3]);

  // Bad input says what to do.
  for (const bad of [
    { ...identity, producer_id: -1, base_sequence: 4 },
    { ...identity, producer_epoch: 40_000, base_sequence: 4 },
    { ...identity, base_sequence: -2 },
  ])
    expect(await codeOf(rawCall('Broker', 'Produce', portable(['y'], bad)))).toBe('INVALID_REQUEST');
  const fastPath = {
    topic: 'dev-portable',
    partition: 0,
    acks: 'ACKS_ALL',
    record_batches: encodeBatch([{ key: null, value: Buffer.from('z') }]),
    producer: { ...identity, base_sequence: 4 },
  };
  const err = await rawCall('Broker', 'Produce', fastPath).catch((e: Error) => e);
  expect((err as { code?: string }).code).toBe('INVALID_REQUEST');
  expect((err as Error).message).toMatch(/portable path/);
});

it('a portable transaction: transactional records are held back until EndTxn, aborted ones never show', async () => {
  const txnId = 'dev-portable-txn';
  // Through the broker, which relays the TransactionCoordinator service to the coordinator.
  const init = await rawCall<{ producer_id: number; producer_epoch: number }>(
    'TransactionCoordinator',
    'InitTransactions',
    { transactional_id: txnId },
  );
  const producerId = init.producer_id;
  let epoch = init.producer_epoch;
  const run = async (value: string, commit: boolean, explicitAdd: boolean) => {
    const identity = { transactional_id: txnId, producer_id: producerId, producer_epoch: epoch };
    // Optional: the leader adds the partition itself on the first batch (KIP-890 part 2).
    if (explicitAdd)
      await rawCall('TransactionCoordinator', 'AddPartitionsToTxn', {
        ...identity,
        partitions: [{ topic: 'dev-portable', partitions: [0] }],
      });
    await rawCall('Broker', 'Produce', {
      ...portable([value], {
        producer_id: producerId,
        producer_epoch: epoch,
        base_sequence: 0,
        transactional: true,
      }),
      transactional_id: txnId,
    });
    const ended = await rawCall<{ producer_epoch: number }>('TransactionCoordinator', 'EndTxn', {
      ...identity,
      commit,
    });
    expect(ended.producer_epoch).toBeGreaterThan(epoch);
    epoch = ended.producer_epoch;
  };
  await run('committed', true, true);
  await run('aborted', false, false);
  // EndTxn answers once the end is decided; its markers follow.
  await waitFor(
    async () => (await tide.transactions().describeTransaction(txnId)).state === 'CompleteAbort',
    {
      what: 'the abort markers',
      timeoutMs: 20_000,
    },
  );
  const values = await readCommitted('dev-portable', 0);
  expect(values).toEqual(['a', 'b', 'c', 'd', 'committed']);
  const late = (producerEpoch: number, sequence: number) => ({
    ...portable(['late'], {
      producer_id: producerId,
      producer_epoch: producerEpoch,
      base_sequence: sequence,
      transactional: true,
    }),
    transactional_id: txnId,
  });
  // A transactional batch of the ended epoch is refused (KIP-890: every end bumps the epoch): the
  // leader has no transaction of it open, asks the coordinator, which knows it ended aborted.
  expect(await codeOf(rawCall('Broker', 'Produce', late(epoch - 1, 1)))).toMatch(
    /INVALID_PRODUCER_EPOCH|PRODUCER_FENCED|TRANSACTION_ABORTED/,
  );
  // Transactional batches need the transactional id: the leader adds the partition with it.
  const { transactional_id: _, ...withoutId } = late(epoch, 0);
  expect(await codeOf(rawCall('Broker', 'Produce', withoutId))).toBe('INVALID_REQUEST');
});

it('partitions join implicitly; a leader refuses a batch the coordinator has no open transaction for (KIP-890)', async () => {
  await tide.admin().createTopic('dev-join', { partitions: 2 });
  const txnId = 'dev-join-txn';
  const init = await rawCall<{ producer_id: number; producer_epoch: number }>(
    'TransactionCoordinator',
    'InitTransactions',
    { transactional_id: txnId, transaction_timeout_ms: 1_500 },
  );
  const produce = (partition: number, value: string, epoch: number, sequence = 0) =>
    rawCall<Produced>('Broker', 'Produce', {
      topic: 'dev-join',
      partition,
      acks: 'ACKS_ALL',
      records: [{ value: Buffer.from(value) }],
      producer: {
        producer_id: init.producer_id,
        producer_epoch: epoch,
        base_sequence: sequence,
        transactional: true,
      },
      transactional_id: txnId,
    });
  // No AddPartitionsToTxn: the leader added partition 0 on the first batch.
  await produce(0, 'joined', init.producer_epoch);
  const described = await tide.transactions().describeTransaction(txnId);
  expect(described).toMatchObject({ state: 'Ongoing', partitions: [{ topic: 'dev-join', partition: 0 }] });
  // The coordinator aborts it on its timeout (epoch + 1). A late batch to a partition the
  // transaction never had would open a hanging transaction there: the leader asks first, and
  // the coordinator refuses it, so nothing is written.
  await waitFor(
    async () => (await tide.transactions().describeTransaction(txnId)).state === 'CompleteAbort',
    {
      what: 'the timeout abort',
      timeoutMs: 20_000,
    },
  );
  expect(await codeOf(produce(1, 'hanging', init.producer_epoch))).toMatch(
    /TRANSACTION_ABORTED|PRODUCER_FENCED/,
  );
  const consumer = tide.consumer();
  try {
    expect((await consumer.listOffset({ topic: 'dev-join', partition: 1 }, 'latest')).offset).toBe(0);
  } finally {
    await consumer.close();
  }
});
