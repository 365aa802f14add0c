/**
 * The transaction state machine (KIP-890 rules): init fences, add opens and extends, end prepares
 * with the epoch bump, retries of the last end are recognised, stale epochs are fenced, timeout
 * detection, and the codec round trip of __transaction_state records.
 */
import { TideError } from '../../../services/common/errors';
import { tpKey } from '../../../services/group-coordinator/partitions';
import {
  add,
  alreadyAdded,
  complete,
  end,
  init,
  MAX_PRODUCER_EPOCH,
  prepare,
  timedOut,
  transactionTimeout,
  type TxnMetadata,
} from '../../../services/group-coordinator/txn/txn-state';
import { decodeTxnStateRecord, txnKey, txnValue } from '../../../services/group-coordinator/txn/txn-codec';
import { markerKey, markerValue } from '../../../services/group-coordinator/offsets-codec';

let nextId = 100;
const newProducerId = async () => nextId++;
const P0 = tpKey('orders', 0);
const P1 = tpKey('orders', 1);

async function fresh(): Promise<TxnMetadata> {
  return init(undefined, 'tx', { timeoutMs: 1_000, nowMs: 10, newProducerId });
}

async function open(what: { partitions?: string[]; groups?: string[] }, nowMs: number): Promise<TxnMetadata> {
  const m = await fresh();
  return add(m, m.producerId, 0, what, nowMs);
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as TideError).code;
  }
  return undefined;
}

describe('transaction state machine', () => {
  it('init: a new id gets a producer id at epoch 0; re-init bumps the epoch and forgets the last end', async () => {
    const m = await fresh();
    expect(m).toMatchObject({ state: 'Empty', producerEpoch: 0, lastProducerEpoch: -1, timeoutMs: 1_000 });
    const ended = complete(
      prepare(add(m, m.producerId, 0, { partitions: [P0] }, 20), 'PrepareCommit', 30),
      40,
    );
    expect(ended).toMatchObject({ state: 'CompleteCommit', producerEpoch: 1, lastProducerEpoch: 0 });
    const again = await init(ended, 'tx', { timeoutMs: 2_000, nowMs: 50, newProducerId });
    expect(again).toMatchObject({
      producerId: m.producerId,
      producerEpoch: 2,
      lastProducerEpoch: -1,
      state: 'Empty',
      timeoutMs: 2_000,
    });
    // The first producer's retried end (epoch 0) is now fenced, not answered.
    expect(codeOf(() => end(again, m.producerId, 0, true, 60))).toBe('PRODUCER_FENCED');
  });

  it('init refuses while a transaction is open or completing (the coordinator aborts it first)', async () => {
    const m = await open({ partitions: [P0] }, 20);
    await expect(init(m, 'tx', { timeoutMs: 1, nowMs: 1, newProducerId })).rejects.toMatchObject({
      code: 'CONCURRENT_TRANSACTIONS',
    });
  });

  it('init past the largest epoch moves to a new producer id at epoch 0', async () => {
    const m = { ...(await fresh()), producerEpoch: MAX_PRODUCER_EPOCH };
    const next = await init(m, 'tx', { timeoutMs: 1, nowMs: 1, newProducerId });
    expect(next.producerId).not.toBe(m.producerId);
    expect(next.producerEpoch).toBe(0);
  });

  it('add opens a transaction (start time) and extends it; a repeat changes nothing', async () => {
    const m = await fresh();
    const a = add(m, m.producerId, 0, { partitions: [P1] }, 20);
    expect(a).toMatchObject({ state: 'Ongoing', startTimeMs: 20, partitions: [P1] });
    const b = add(a, m.producerId, 0, { partitions: [P0], groups: ['g'] }, 30);
    expect(b).toMatchObject({ startTimeMs: 20, partitions: [P0, P1], groups: ['g'] });
    expect(alreadyAdded(b, { partitions: [P0], groups: ['g'] })).toBe(true);
    expect(alreadyAdded(b, { partitions: [tpKey('orders', 2)] })).toBe(false);
  });

  it('every call checks producer id and epoch: older is fenced, newer is refused', async () => {
    const m = await init(await fresh(), 'tx', { timeoutMs: 1_000, nowMs: 1, newProducerId });
    expect(m.producerEpoch).toBe(1);
    expect(codeOf(() => add(m, m.producerId, 0, { partitions: [P0] }, 1))).toBe('PRODUCER_FENCED');
    expect(codeOf(() => add(m, m.producerId + 1, 1, { partitions: [P0] }, 1))).toBe('PRODUCER_FENCED');
    expect(codeOf(() => add(m, m.producerId, 5, { partitions: [P0] }, 1))).toBe('INVALID_PRODUCER_EPOCH');
    expect(codeOf(() => end(m, m.producerId, 0, true, 1))).toBe('PRODUCER_FENCED');
  });

  it('end prepares with the epoch bump; the same end retried is waited for, then answered', async () => {
    const m = await open({ partitions: [P0] }, 20);
    const pid = m.producerId;
    const d = end(m, pid, 0, true, 30);
    expect(d.kind).toBe('prepare');
    const prepared = (d as { next: TxnMetadata }).next;
    expect(prepared).toMatchObject({ state: 'PrepareCommit', producerEpoch: 1, lastProducerEpoch: 0 });
    expect(end(prepared, pid, 0, true, 31)).toEqual({ kind: 'wait' });
    const done = complete(prepared, 40);
    expect(done).toMatchObject({ state: 'CompleteCommit', partitions: [], startTimeMs: 0 });
    expect(end(done, pid, 0, true, 41)).toEqual({ kind: 'done' });
    // The opposite outcome for the ended transaction is refused.
    expect(codeOf(() => end(done, pid, 0, false, 42))).toBe('INVALID_TXN_STATE');
    // A late add with the old epoch cannot touch the next transaction.
    expect(codeOf(() => add(done, pid, 0, { partitions: [P0] }, 43))).toBe('PRODUCER_FENCED');
    // The next transaction uses the bumped epoch.
    expect(add(done, pid, 1, { partitions: [P1] }, 44)).toMatchObject({ state: 'Ongoing', producerEpoch: 1 });
  });

  it('end without an open transaction, or while completing, is refused', async () => {
    const m = await fresh();
    expect(codeOf(() => end(m, m.producerId, 0, true, 1))).toBe('INVALID_TXN_STATE');
    const prepared = prepare(add(m, m.producerId, 0, { partitions: [P0] }, 1), 'PrepareAbort', 2);
    expect(codeOf(() => end(prepared, m.producerId, 1, true, 3))).toBe('CONCURRENT_TRANSACTIONS');
    expect(codeOf(() => add(prepared, m.producerId, 1, { partitions: [P0] }, 3))).toBe(
      'CONCURRENT_TRANSACTIONS',
    );
  });

  it('a timeout abort: the producer gets TRANSACTION_ABORTED for commit and adds, and its abort succeeds', async () => {
    const m = await open({ partitions: [P0] }, 20);
    expect(timedOut(m, 20 + 1_000)).toBe(false);
    expect(timedOut(m, 20 + 1_001)).toBe(true);
    const aborted = complete(prepare(m, 'PrepareAbort', 1_100), 1_200);
    expect(codeOf(() => end(aborted, m.producerId, 0, true, 1_300))).toBe('TRANSACTION_ABORTED');
    expect(codeOf(() => add(aborted, m.producerId, 0, { partitions: [P1] }, 1_300))).toBe(
      'TRANSACTION_ABORTED',
    );
    expect(end(aborted, m.producerId, 0, false, 1_300)).toEqual({ kind: 'done' });
  });

  it('transaction timeouts: 0 is the default, above the maximum is refused', () => {
    expect(transactionTimeout(0, 900_000)).toBe(60_000);
    expect(transactionTimeout(5_000, 900_000)).toBe(5_000);
    expect(codeOf(() => transactionTimeout(900_001, 900_000))).toBe('INVALID_TRANSACTION_TIMEOUT');
  });
});

describe('transaction state codec', () => {
  it('round-trips a transaction and a shard marker; unknown types are skipped, not fatal', async () => {
    const m = await open({ partitions: [P0, P1], groups: ['g'] }, 20);
    const decoded = decodeTxnStateRecord(txnKey('tx'), txnValue(7, m));
    expect(decoded).toEqual({
      type: 'txn',
      transactionalId: 'tx',
      value: { coordinatorEpoch: 7, metadata: m },
    });
    expect(decodeTxnStateRecord(txnKey('tx'), null)).toEqual({
      type: 'txn',
      transactionalId: 'tx',
      value: null,
    });
    expect(decodeTxnStateRecord(markerKey(3, 9), markerValue(9, 5))).toEqual({
      type: 'marker',
      shard: 3,
      value: { coordinatorEpoch: 9, timestampMs: 5 },
    });
    expect(decodeTxnStateRecord(Buffer.from([0, 9, 1, 2]), null).type).toBe('unknown');
  });

  it('refuses a value that names another id or an unknown state', async () => {
    const m = await fresh();
    expect(() => decodeTxnStateRecord(txnKey('other'), txnValue(1, m))).toThrow(/names tx/);
    const bad = txnValue(1, { ...m, state: 'Weird' as never });
    expect(() => decodeTxnStateRecord(txnKey('tx'), bad)).toThrow(/unknown state/);
  });
});
