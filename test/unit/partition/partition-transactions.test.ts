/**
 * Transactions at the partition layer (leader with fake followers on a manual clock): transactional
 * produce, the LSO bounded by the HW, read_committed reads stopping at the LSO with the aborted
 * ranges of the same read, long polls woken by the LSO, and WriteTxnMarkers' leader side
 * (replicated before answering, idempotent retries, producer- and coordinator-epoch fencing).
 */
import { decodeRecords, encodeBatch } from '../../../services/common/records';
import { TempDirs } from '../log/helpers';
import { partitionOn, state, track, until, type PartitionFixture } from './helpers';

const dirs = new TempDirs();
let fixture: PartitionFixture | undefined;

afterEach(async () => {
  fixture?.partition.close();
  await fixture?.log.close();
  fixture = undefined;
  await dirs.cleanup();
});

const EPOCH = 9_000; // follower broker epoch

const txn = (producerId: number, epoch: number, seq: number, value: string): Buffer =>
  encodeBatch([{ key: null, value: Buffer.from(value) }], {
    producerId,
    producerEpoch: epoch,
    baseSequence: seq,
    transactional: true,
    nowMs: 1000,
  });
const plain = (value: string): Buffer =>
  encodeBatch([{ key: null, value: Buffer.from(value) }], { nowMs: 1000 });

const commit = (producerEpoch: number, coordinatorEpoch = 0) => ({
  type: 'COMMIT' as const,
  producerId: 7,
  producerEpoch,
  coordinatorEpoch,
  timeoutMs: 5000,
});

async function leader(): Promise<PartitionFixture> {
  fixture = await partitionOn(dirs);
  await fixture.partition.makeLeader(state({ isr: [1, 2], replicas: [1, 2] }), 1);
  return fixture;
}

/** Follower 2 catches up to the leader's LEO, moving the HW there. */
function replicate(f: PartitionFixture): void {
  f.partition.recordFollowerFetch(2, EPOCH, f.partition.leaderLogEndOffset);
}

const values = (batches: Buffer, aborted?: Parameters<typeof decodeRecords>[2]): string[] =>
  decodeRecords(batches, 0, aborted).map((r) => r.value?.toString() ?? '');

describe('transactional produce and the LSO', () => {
  it('read_committed stops at the LSO; the HW bounds the LSO; a commit marker releases the range', async () => {
    const f = await leader();
    const { partition } = f;
    await partition.append(plain('p0'), { acks: 'leader' }); // 0
    await partition.append(txn(7, 0, 0, 't1'), { acks: 'leader' }); // 1
    await partition.append(plain('p2'), { acks: 'leader' }); // 2
    expect(partition.lastStableOffset).toBe(0); // HW 0
    replicate(f);
    expect([partition.highWatermark, partition.lastStableOffset]).toEqual([3, 1]);

    const uncommitted = await partition.read(0, 1 << 20);
    expect(values(uncommitted.batches)).toEqual(['p0', 't1', 'p2']);
    expect(uncommitted.abortedTransactions).toBeUndefined();
    const committed = await partition.read(0, 1 << 20, 'read_committed');
    expect(values(committed.batches)).toEqual(['p0']);
    expect([committed.nextOffset, committed.lastStableOffset, committed.highWatermark]).toEqual([1, 1, 3]);
    // At the LSO (below the HW) a read_committed consumer waits: nothing, not out of range.
    const waiting = await partition.read(2, 1 << 20, 'read_committed');
    expect([waiting.batches.length, waiting.nextOffset]).toEqual([0, 2]);

    const marker = track(
      partition.writeTxnMarker({
        type: 'COMMIT',
        producerId: 7,
        producerEpoch: 1,
        coordinatorEpoch: 0,
        timeoutMs: 5000,
      }),
    );
    await until(() => partition.leaderLogEndOffset === 4, 'marker appended');
    // The marker is not below the HW yet: the transaction is still unstable.
    expect(partition.lastStableOffset).toBe(1);
    expect(marker.outcome).toBe('pending');
    replicate(f);
    await until(() => marker.outcome === 'resolved', 'marker acknowledged');
    expect(marker.value).toBe('written');
    expect(partition.lastStableOffset).toBe(4);
    const all = await partition.read(0, 1 << 20, 'read_committed');
    expect(values(all.batches, all.abortedTransactions)).toEqual(['p0', 't1', 'p2']);
    expect(all.abortedTransactions).toEqual([]);
  });

  it('an aborted transaction comes back with its range; the filter hides it, not the others', async () => {
    const f = await leader();
    const { partition } = f;
    await partition.append(txn(7, 0, 0, 'a1'), { acks: 'leader' }); // 0
    await partition.append(txn(8, 0, 0, 'c1'), { acks: 'leader' }); // 1
    await partition.append(txn(7, 0, 1, 'a2'), { acks: 'leader' }); // 2
    replicate(f);
    const abort = partition.writeTxnMarker({
      type: 'ABORT',
      producerId: 7,
      producerEpoch: 1,
      coordinatorEpoch: 0,
      timeoutMs: 5000,
    }); // 3
    await until(() => partition.leaderLogEndOffset === 4);
    replicate(f);
    await abort;
    // Producer 8 is still open at 1: the LSO stays there.
    expect(partition.lastStableOffset).toBe(1);
    const commit = partition.writeTxnMarker({
      type: 'COMMIT',
      producerId: 8,
      producerEpoch: 1,
      coordinatorEpoch: 0,
      timeoutMs: 5000,
    }); // 4
    await until(() => partition.leaderLogEndOffset === 5);
    replicate(f);
    await commit;
    expect(partition.lastStableOffset).toBe(5);
    const read = await partition.read(0, 1 << 20, 'read_committed');
    expect(read.abortedTransactions).toEqual([{ producerId: 7, firstOffset: 0 }]);
    expect(values(read.batches, read.abortedTransactions)).toEqual(['c1']);
    // The late data of the aborted transaction's epoch is fenced (the marker bumped the epoch).
    await expect(partition.append(txn(7, 0, 2, 'late'), { acks: 'leader' })).rejects.toMatchObject({
      code: 'INVALID_PRODUCER_EPOCH',
    });
  });

  it('a read_committed long poll wakes when the LSO passes its offset, not on the HW alone', async () => {
    const f = await leader();
    const { partition } = f;
    await partition.append(txn(7, 0, 0, 't'), { acks: 'leader' }); // 0
    replicate(f);
    const committedWait = track(partition.waitForData(0, 60_000, undefined, 'read_committed'));
    await partition.append(plain('after'), { acks: 'leader' }); // 1
    replicate(f);
    await new Promise((resolve) => setImmediate(resolve));
    expect(committedWait.outcome).toBe('pending'); // HW 2, LSO still 0
    await partition.waitForData(0, 60_000); // read_uncommitted has data
    const marker = partition.writeTxnMarker({
      type: 'COMMIT',
      producerId: 7,
      producerEpoch: 1,
      coordinatorEpoch: 0,
      timeoutMs: 5000,
    });
    await until(() => partition.leaderLogEndOffset === 3);
    replicate(f);
    await marker;
    await until(() => committedWait.outcome === 'resolved', 'read_committed waiter');
  });
});

describe('WriteTxnMarkers on the leader', () => {
  it('a retried marker writes nothing; older producer or coordinator epochs are fenced', async () => {
    const f = await leader();
    const { partition } = f;
    await partition.append(txn(7, 3, 0, 't'), { acks: 'leader' }); // 0
    replicate(f);
    const first = partition.writeTxnMarker(commit(4, 2)); // 1
    await until(() => partition.leaderLogEndOffset === 2);
    replicate(f);
    expect(await first).toBe('written');
    expect(await partition.writeTxnMarker(commit(4, 2))).toBe('no-open-transaction');
    expect(partition.leaderLogEndOffset).toBe(2);
    await expect(partition.writeTxnMarker(commit(3, 2))).rejects.toMatchObject({ code: 'PRODUCER_FENCED' });

    await partition.append(txn(7, 4, 0, 'next'), { acks: 'leader' }); // 2
    replicate(f);
    await expect(partition.writeTxnMarker(commit(5, 1))).rejects.toMatchObject({ code: 'PRODUCER_FENCED' });
    expect(partition.log.openTransactions()).toEqual([{ producerId: 7, epoch: 4, firstOffset: 2 }]);
  });

  it('waits for the replicas: no answer before the marker is below the HW; NOT_LEADER on a follower', async () => {
    const f = await leader();
    const { partition } = f;
    await partition.append(txn(7, 0, 0, 't'), { acks: 'leader' });
    replicate(f);
    const pending = track(partition.writeTxnMarker(commit(1)));
    await until(() => partition.leaderLogEndOffset === 2);
    expect(pending.outcome).toBe('pending');
    partition.makeFollower(state({ leader: 2, leaderEpoch: 6, isr: [1, 2], replicas: [1, 2] }));
    await until(() => pending.outcome === 'NOT_LEADER');
    await expect(partition.writeTxnMarker(commit(1))).rejects.toMatchObject({ code: 'NOT_LEADER' });
  });
});

describe('followers', () => {
  it('forget closed transactions once their marker is below the HW (the LSO then reaches the HW)', async () => {
    fixture = await partitionOn(dirs);
    const { partition, log } = fixture;
    partition.makeFollower(state({ leader: 2, leaderEpoch: 4 }));
    const leaderSide = await partitionOn(dirs, { brokerId: 2 });
    try {
      await leaderSide.partition.makeLeader(state({ leader: 2, leaderEpoch: 4, isr: [2], replicas: [2] }), 1);
      await leaderSide.partition.append(txn(7, 0, 0, 'x'));
      await leaderSide.partition.writeTxnMarker(commit(1));
      const copied = await leaderSide.log.read(0, 1 << 20);
      expect(await partition.appendFromLeader(4, copied.batches, 2)).toBe(true);
      expect(log.openTransactions()).toEqual([]);
      expect(partition.highWatermark).toBe(2);
      expect(partition.lastStableOffset).toBe(2);
      await partition.makeLeader(state({ leaderEpoch: 5 }), 1);
      const read = await partition.read(0, 1 << 20, 'read_committed');
      expect(values(read.batches, read.abortedTransactions)).toEqual(['x']);
    } finally {
      leaderSide.partition.close();
      await leaderSide.log.close();
    }
  });
});
