/**
 * Implicit partition joins at the leader (services/broker/partition/txn-join.ts, KIP-890): the
 * first transactional batch of a producer epoch asks the coordinator (a scripted joiner here)
 * before it is appended, later ones of the same transaction do not; a producer's appends keep
 * their order while its join runs, other producers are not held up; a refused join appends
 * nothing; transactional batches need the transactional id; and the next transaction's batches
 * cannot reach a partition before the previous transaction's marker.
 */
import { TideError } from '../../../services/common/errors';
import { decodeRecords, encodeBatch } from '../../../services/common/records';
import type { TxnJoinRequest, TxnPartitionJoiner } from '../../../services/broker/partition/txn-join';
import { transactionalProducerOf } from '../../../services/broker/partition/txn-join';
import { TempDirs } from '../log/helpers';
import { partitionOn, state, type PartitionFixture } from './helpers';

const dirs = new TempDirs();
let fixture: PartitionFixture | undefined;

afterEach(async () => {
  fixture?.partition.close();
  await fixture?.log.close();
  fixture = undefined;
  await dirs.cleanup();
});

const txn = (producerId: number, epoch: number, seq: number, value: string): Buffer =>
  encodeBatch([{ key: null, value: Buffer.from(value) }], {
    producerId,
    producerEpoch: epoch,
    baseSequence: seq,
    transactional: true,
    nowMs: 1000,
  });

/** Records every join; holds the joins of `held` producers until `release()`; refuses with `refusal`. */
class ScriptedJoiner implements TxnPartitionJoiner {
  readonly joins: TxnJoinRequest[] = [];
  readonly held = new Set<number>();
  refusal?: TideError;
  private waiting: (() => void)[] = [];

  release(): void {
    this.held.clear();
    for (const go of this.waiting.splice(0)) go();
  }

  async join(request: TxnJoinRequest): Promise<void> {
    this.joins.push(request);
    if (this.held.has(request.producerId)) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.refusal) throw this.refusal;
  }
}

async function leader(joiner?: TxnPartitionJoiner): Promise<PartitionFixture> {
  fixture = await partitionOn(dirs, { txnJoiner: joiner });
  await fixture.partition.makeLeader(state({ isr: [1], replicas: [1] }), 1);
  return fixture;
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

const options = { acks: 'leader' as const, transactionalId: 'tx' };

it('the first batch of a transaction joins the partition; later ones of it append at once', async () => {
  const joiner = new ScriptedJoiner();
  const { partition } = await leader(joiner);
  await partition.append(txn(7, 0, 0, 'a'), options);
  await partition.append(txn(7, 0, 1, 'b'), options);
  expect(joiner.joins).toEqual([
    {
      transactionalId: 'tx',
      producerId: 7,
      producerEpoch: 0,
      topic: 'orders',
      partition: 0,
      timeoutMs: expect.any(Number),
    },
  ]);
  await partition.writeTxnMarker({
    type: 'COMMIT',
    producerId: 7,
    producerEpoch: 1,
    coordinatorEpoch: 0,
    timeoutMs: 5000,
  });
  // The next transaction (the bumped epoch) joins again.
  await partition.append(txn(7, 1, 0, 'c'), options);
  expect(joiner.joins.map((j) => j.producerEpoch)).toEqual([0, 1]);
});

it("a producer's appends wait behind its join, in order; another producer is not held up", async () => {
  const joiner = new ScriptedJoiner();
  const { partition } = await leader(joiner);
  joiner.held.add(7);
  const first = partition.append(txn(7, 0, 0, 'a'), options);
  const second = partition.append(txn(7, 0, 1, 'b'), options);
  await flush();
  const other = await partition.append(txn(8, 0, 0, 'x'), { ...options, transactionalId: 'other' });
  expect(other.baseOffset).toBe(0);
  joiner.release();
  expect((await first).baseOffset).toBe(1);
  expect((await second).baseOffset).toBe(2);
  expect(joiner.joins.map((j) => j.producerId)).toEqual([7, 8]);
});

it("a refused join appends nothing and fails the batch with the coordinator's error", async () => {
  const joiner = new ScriptedJoiner();
  const { partition, log } = await leader(joiner);
  joiner.held.add(7);
  joiner.refusal = new TideError('PRODUCER_FENCED', 'fenced');
  const refused = partition.append(txn(7, 0, 0, 'zombie'), options);
  const after = partition.append(txn(7, 0, 1, 'zombie-2'), options);
  await flush();
  joiner.release();
  await expect(refused).rejects.toMatchObject({ code: 'PRODUCER_FENCED' });
  // The waiting append asks again, and is refused too.
  await expect(after).rejects.toMatchObject({ code: 'PRODUCER_FENCED' });
  expect(joiner.joins).toHaveLength(2);
  expect(log.logEndOffset).toBe(0);
});

it('transactional batches need the transactional id; plain ones do not', async () => {
  const joiner = new ScriptedJoiner();
  const { partition } = await leader(joiner);
  await expect(partition.append(txn(7, 0, 0, 'a'), { acks: 'leader' })).rejects.toMatchObject({
    code: 'INVALID_REQUEST',
  });
  const plain = encodeBatch([{ key: null, value: Buffer.from('p') }], { nowMs: 1 });
  expect((await partition.append(plain, { acks: 'leader' })).baseOffset).toBe(0);
  expect(joiner.joins).toEqual([]);
});

it("the next transaction's batches cannot land before the previous transaction's marker", async () => {
  const { partition } = await leader();
  await partition.append(txn(7, 0, 0, 'a'), { acks: 'leader' });
  await expect(partition.append(txn(7, 1, 0, 'b'), { acks: 'leader' })).rejects.toMatchObject({
    code: 'CONCURRENT_TRANSACTIONS',
    retriable: true,
  });
  await partition.writeTxnMarker({
    type: 'ABORT',
    producerId: 7,
    producerEpoch: 1,
    coordinatorEpoch: 0,
    timeoutMs: 5000,
  });
  await partition.append(txn(7, 1, 0, 'b'), { acks: 'leader' });
  const read = await partition.read(0, 1 << 20);
  expect(decodeRecords(read.batches, 0).map((r) => r.value?.toString())).toEqual(['a', 'b']);
});

it('transactionalProducerOf names the producer of the transactional batches of a request', () => {
  const plain = encodeBatch([{ key: null, value: Buffer.from('p') }], { nowMs: 1 });
  expect(transactionalProducerOf(plain)).toBeUndefined();
  expect(transactionalProducerOf(Buffer.concat([plain, txn(7, 3, 0, 'a'), txn(7, 3, 1, 'b')]))).toEqual({
    producerId: 7,
    producerEpoch: 3,
  });
  expect(() => transactionalProducerOf(Buffer.concat([txn(7, 3, 0, 'a'), txn(8, 0, 0, 'b')]))).toThrow(
    expect.objectContaining({ code: 'INVALID_REQUEST' }),
  );
  expect(transactionalProducerOf(Buffer.alloc(10))).toBeUndefined();
});

it('a marker sent again after the next transaction started here does not end that transaction', async () => {
  const { partition } = await leader();
  const marker = (type: 'COMMIT' | 'ABORT', producerEpoch: number) => ({
    type,
    producerId: 7,
    producerEpoch,
    coordinatorEpoch: 0,
    timeoutMs: 5000,
  });
  await partition.append(txn(7, 0, 0, 'first'), { acks: 'leader' });
  expect(await partition.writeTxnMarker(marker('COMMIT', 1))).toBe('written');
  await partition.append(txn(7, 1, 0, 'second'), { acks: 'leader' });
  // The first transaction's COMMIT again (epoch 1, as the second one's batches): a no-op.
  expect(await partition.writeTxnMarker(marker('COMMIT', 1))).toBe('no-open-transaction');
  expect(partition.lastStableOffset).toBe(2);
  expect(await partition.writeTxnMarker(marker('ABORT', 2))).toBe('written');
  const read = await partition.read(0, 1 << 20, 'read_committed');
  expect(decodeRecords(read.batches, 0, read.abortedTransactions).map((r) => r.value?.toString())).toEqual([
    'first',
  ]);
});
