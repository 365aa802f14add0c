/**
 * EndTxn with reserve_partitions (txn-state.ts TxnReservation): the Prepare record also makes the
 * ended transaction's partitions part of the next one, at the Prepare epoch + 1, so the next
 * transaction's leader joins there are answered without a write (one `__transaction_state` write
 * per transaction), still only after the previous transaction's markers. A new owner that replays a
 * reservation takes it as an open transaction (its timeout aborts it, with markers), and markers of
 * the ended transaction keep the Prepare epoch (fenced where the next one already wrote).
 */
import { ManualClock } from '../../../services/common/clock';
import type { TideError } from '../../../services/common/errors';
import { silentLogger } from '../../../services/common/logger';
import { shardOf } from '../../../services/common/cluster/coordinator-shards';
import type { OffsetsLog, OffsetsLogRecord } from '../../../services/group-coordinator/offsets-log';
import { tpKey } from '../../../services/group-coordinator/partitions';
import { decodeTxnStateRecord } from '../../../services/group-coordinator/txn/txn-codec';
import type { TxnCompletion, TxnEnding } from '../../../services/group-coordinator/txn/txn-completion';
import { TransactionCoordinator } from '../../../services/group-coordinator/txn/txn-coordinator';
import type { TxnMetadata } from '../../../services/group-coordinator/txn/txn-state';
import { TestLease } from '../group/test-lease';

const SHARDS = 4;
const TX = 'payments-writer';
const SHARD = shardOf(TX, SHARDS);
const P0 = tpKey('out', 0);
const P1 = tpKey('out', 1);

class MemoryLog implements OffsetsLog {
  readonly records: OffsetsLogRecord[] = [];

  async append(_partition: number, records: OffsetsLogRecord[]): Promise<number> {
    this.records.push(...records);
    return this.records.length - 1;
  }

  async replay(_p: number, through: number, onRecord: (k: Buffer, v: Buffer | null, o: number) => void) {
    this.records.slice(0, through + 1).forEach((r, i) => onRecord(r.key, r.value, i));
  }

  /** The states written for TX, in order. */
  states(): TxnMetadata[] {
    const out: TxnMetadata[] = [];
    for (const r of this.records) {
      const d = decodeTxnStateRecord(r.key, r.value);
      if (d.type === 'txn' && d.transactionalId === TX && d.value) out.push(d.value.metadata);
    }
    return out;
  }
}

class RecordingCompletion implements TxnCompletion {
  readonly endings: TxnEnding[] = [];
  private held?: (() => void)[];

  hold(): void {
    this.held = [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const go of held) go();
  }

  async complete(ending: TxnEnding, cancelled: () => boolean): Promise<void> {
    this.endings.push(ending);
    if (this.held) await new Promise<void>((resolve) => this.held!.push(resolve));
    if (cancelled()) throw new Error('cancelled');
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

let clock: ManualClock;
let log: MemoryLog;
let completion: RecordingCompletion;
let producerIds = 1000;

async function loaded(selfId: string, epoch: number): Promise<TransactionCoordinator> {
  const c = new TransactionCoordinator({
    selfId,
    clock,
    logger: silentLogger(),
    log,
    statePartitions: 2,
    shardCount: () => SHARDS,
    partitionCount: (topic) => (topic === 'out' ? 3 : undefined),
    completion,
    newProducerId: async () => producerIds++,
    maxTimeoutMs: 900_000,
    tickMs: 100,
  });
  c.start();
  c.acquire([{ shard: SHARD, epoch, fence: new TestLease(clock, 60_000).fence }]);
  await flush();
  return c;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as TideError).code;
  }
  return 'none';
}

beforeEach(() => {
  clock = new ManualClock();
  log = new MemoryLog();
  completion = new RecordingCompletion();
});

it('one write per transaction: the reserved join is answered without a write, after the markers', async () => {
  const c = await loaded('a', 5);
  const { producerId } = await c.initTransactions(TX, 0);
  await c.addPartitions(TX, producerId, 0, [P0]);
  completion.hold();
  // The answer is the reserved epoch: the Prepare epoch (1, the markers') + 1.
  expect(await c.endTxn(TX, producerId, 0, true, true)).toEqual({ producerId, producerEpoch: 2 });
  expect(log.states().map((m) => m.state)).toEqual(['Empty', 'Ongoing', 'PrepareCommit']);
  expect(log.states()[2]).toMatchObject({
    producerEpoch: 1,
    reserved: { producerEpoch: 2, partitions: [P0], commit: true },
  });
  // The next transaction's join waits for the markers, then needs no write.
  let joined = false;
  const joining = c.addPartitions(TX, producerId, 2, [P0]).then(() => (joined = true));
  await flush();
  expect(joined).toBe(false);
  completion.release();
  await joining;
  // (An EndTxn of the reserved epoch meanwhile would wait for the markers the same way: below.)
  expect(completion.endings[0]).toMatchObject({ producerEpoch: 1, commit: true, partitions: [P0] });
  expect(log.states()).toHaveLength(3);
  expect(c.describe(TX)).toMatchObject({ state: 'Ongoing', producerEpoch: 2, partitions: [P0] });
  // A partition outside the reservation is written as before.
  await c.addPartitions(TX, producerId, 2, [P1]);
  expect(log.states()).toHaveLength(4);
  // The marker epoch (1) is no transaction's: fenced.
  expect(await codeOf(c.addPartitions(TX, producerId, 1, [P0]))).toBe('PRODUCER_FENCED');
  expect(await c.endTxn(TX, producerId, 2, true, true)).toEqual({ producerId, producerEpoch: 4 });
  await flush();
  expect(completion.endings[1]).toMatchObject({ producerEpoch: 3, partitions: [P0, P1] });
  expect(c.describe(TX)).toMatchObject({ state: 'CompleteCommit', producerEpoch: 4 });
  // A retried EndTxn of the ended transaction (its answer lost) gets the reserved identity again.
  expect(await c.endTxn(TX, producerId, 2, true, true)).toEqual({ producerId, producerEpoch: 4 });
  await c.stop();
});

it('without reserve_partitions every join is written and the epoch moves by one', async () => {
  const c = await loaded('a', 5);
  const { producerId } = await c.initTransactions(TX, 0);
  await c.addPartitions(TX, producerId, 0, [P0]);
  expect(await c.endTxn(TX, producerId, 0, true)).toEqual({ producerId, producerEpoch: 1 });
  await flush();
  await c.addPartitions(TX, producerId, 1, [P0]);
  expect(log.states().map((m) => m.state)).toEqual(['Empty', 'Ongoing', 'PrepareCommit', 'Ongoing']);
  await c.stop();
});

it('a new owner takes a replayed reservation as open: its timeout aborts it with markers', async () => {
  const a = await loaded('a', 5);
  const { producerId } = await a.initTransactions(TX, 2_000);
  await a.addPartitions(TX, producerId, 0, [P0]);
  await a.endTxn(TX, producerId, 0, true, true);
  await flush();
  // Joined in memory only (the next transaction's records may be in out/0 now), then the owner dies.
  await a.addPartitions(TX, producerId, 2, [P0]);
  expect(log.states()).toHaveLength(3);
  a.release(SHARD);
  await a.stop();
  const b = await loaded('b', 9);
  expect(b.describe(TX)).toMatchObject({ state: 'Ongoing', producerEpoch: 2, partitions: [P0] });
  // The producer can still commit it...
  clock.advance(2_100);
  await flush();
  // ...or, gone, its timeout aborts it: ABORT markers at a bumped epoch where it may have written.
  expect(b.describe(TX)).toMatchObject({ state: 'CompleteAbort', producerEpoch: 3 });
  expect(completion.endings.at(-1)).toMatchObject({ commit: false, producerEpoch: 3, partitions: [P0] });
  await b.stop();
});

it('a new owner completes a replayed Prepare with a reservation, then opens the reservation', async () => {
  const a = await loaded('a', 5);
  const { producerId } = await a.initTransactions(TX, 0);
  await a.addPartitions(TX, producerId, 0, [P0]);
  completion.hold();
  const ending = a.endTxn(TX, producerId, 0, true, true);
  ending.catch(() => undefined);
  await flush();
  a.release(SHARD);
  await a.stop();
  completion.release();
  expect(await ending).toEqual({ producerId, producerEpoch: 2 });
  const b = await loaded('b', 9);
  await flush();
  // Markers sent again with the Prepare epoch (a leader holding epoch 2 already fences them: done).
  expect(completion.endings.at(-1)).toMatchObject({ commit: true, producerEpoch: 1, coordinatorEpoch: 9 });
  expect(b.describe(TX)).toMatchObject({ state: 'Ongoing', producerEpoch: 2, partitions: [P0] });
  // The producer goes on at the answered epoch: its join is covered, its end works.
  await b.addPartitions(TX, producerId, 2, [P0]);
  expect(await b.endTxn(TX, producerId, 2, true, false)).toEqual({ producerId, producerEpoch: 3 });
  // A second initTransactions meanwhile would have aborted it; now the id is idle.
  await flush();
  expect(b.describe(TX)).toMatchObject({ state: 'CompleteCommit', producerEpoch: 3 });
  expect(b.describe(TX).reserved).toBeUndefined();
  await b.stop();
});

it('initTransactions drops a reservation nobody joined (no write, no abort needed)', async () => {
  const c = await loaded('a', 5);
  const { producerId } = await c.initTransactions(TX, 0);
  await c.addPartitions(TX, producerId, 0, [P0]);
  await c.endTxn(TX, producerId, 0, true, true);
  await flush();
  const next = await c.initTransactions(TX, 0);
  expect(next).toEqual({ producerId, producerEpoch: 3 });
  expect(c.describe(TX)).toMatchObject({ state: 'Empty', partitions: [] });
  expect(c.describe(TX).reserved).toBeUndefined();
  expect(await codeOf(c.addPartitions(TX, producerId, 2, [P0]))).toBe('PRODUCER_FENCED');
  await c.stop();
});

it('an end at the reserved epoch during the markers waits for them (an empty next transaction aborted)', async () => {
  const c = await loaded('a', 5);
  const { producerId } = await c.initTransactions(TX, 0);
  await c.addPartitions(TX, producerId, 0, [P0]);
  completion.hold();
  await c.endTxn(TX, producerId, 0, true, true);
  let ended = false;
  const ending = c.endTxn(TX, producerId, 2, false).then((r) => ((ended = true), r));
  ending.catch(() => undefined);
  await flush();
  expect(ended).toBe(false);
  completion.release();
  // Nothing joined the reservation: there is no open transaction to abort (as without one).
  expect(await codeOf(ending)).toBe('INVALID_TXN_STATE');
  await c.stop();
});

it('a replayed Ongoing record with a reservation includes the reserved partitions joined since without a write', async () => {
  const a = await loaded('a', 5);
  const { producerId } = await a.initTransactions(TX, 0);
  await a.addPartitions(TX, producerId, 0, [P0]);
  await a.endTxn(TX, producerId, 0, true, true);
  await flush();
  // A partition outside the reservation first (written), then the reserved one (not written).
  await a.addPartitions(TX, producerId, 2, [P1]);
  await a.addPartitions(TX, producerId, 2, [P0]);
  expect(log.states().at(-1)).toMatchObject({ state: 'Ongoing', partitions: [P1] });
  a.release(SHARD);
  await a.stop();
  const b = await loaded('b', 9);
  expect(b.describe(TX)).toMatchObject({ state: 'Ongoing', producerEpoch: 2, partitions: [P0, P1] });
  expect(await b.endTxn(TX, producerId, 2, true, true)).toEqual({ producerId, producerEpoch: 4 });
  await flush();
  expect(completion.endings.at(-1)).toMatchObject({ commit: true, producerEpoch: 3, partitions: [P0, P1] });
  await b.stop();
});

it('a retried EndTxn reaching a new owner that opened the reservation is answered, not refused', async () => {
  const a = await loaded('a', 5);
  const { producerId } = await a.initTransactions(TX, 0);
  await a.addPartitions(TX, producerId, 0, [P0]);
  await a.endTxn(TX, producerId, 0, true, true);
  await flush();
  a.release(SHARD);
  await a.stop();
  const b = await loaded('b', 9);
  await flush();
  expect(b.describe(TX)).toMatchObject({ state: 'Ongoing', producerEpoch: 2 });
  // The answer was lost with the old owner: the same commit again gets the same identity.
  expect(await b.endTxn(TX, producerId, 0, true, true)).toEqual({ producerId, producerEpoch: 2 });
  // The opposite outcome is refused.
  expect(await codeOf(b.endTxn(TX, producerId, 0, false))).toBe('INVALID_TXN_STATE');
  await b.stop();
});
