/**
 * Transactions in the partition log: markers close open transactions, the LSO stops at the first
 * open (or unreplicated) transaction, aborted transactions land in the segment's .txnindex and a
 * read_committed read returns them; the state comes back after an unclean reopen (replay).
 */
import { ManualClock } from '../../../services/common/clock';
import { decodeRecords, encodeBatch, encodeControlBatch } from '../../../services/common/records';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { TempDirs, forgetCleanShutdown, openLog } from './helpers';

const dirs = new TempDirs();
let log: SegmentedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  await dirs.cleanup();
});

const data = (producerId: number, epoch: number, seq: number, value: string, transactional = true): Buffer =>
  encodeBatch([{ key: null, value: Buffer.from(value) }], {
    producerId,
    producerEpoch: epoch,
    baseSequence: seq,
    transactional,
    nowMs: 1000,
  });
const marker = (producerId: number, epoch: number, type: 'COMMIT' | 'ABORT'): Buffer =>
  encodeControlBatch({ type, producerId, producerEpoch: epoch, coordinatorEpoch: 0, timestampMs: 1000 });

describe('transactions in the partition log', () => {
  it('tracks open transactions, the LSO and aborted ranges; survives an unclean reopen', async () => {
    const dir = await dirs.make();
    const clock = new ManualClock();
    log = await openLog(dir, undefined, clock);
    await log.append(data(1, 0, 0, 'a1'), { leaderEpoch: 0 }); // 0
    await log.append(data(2, 0, 0, 'b1'), { leaderEpoch: 0 }); // 1
    expect(log.lastStableOffset(2)).toBe(0);
    expect(log.openTransactions().map((t) => t.producerId)).toEqual([1, 2]);
    await expect(log.append(marker(1, 0, 'ABORT'), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'INVALID_RECORD',
    }); // producers may not write markers
    await log.append(marker(1, 1, 'ABORT'), { leaderEpoch: 0, origin: 'coordinator' }); // 2
    await log.append(marker(2, 1, 'COMMIT'), { leaderEpoch: 0, origin: 'coordinator' }); // 3
    // Markers above the HW keep the LSO at their transactions' start.
    expect(log.lastStableOffset(3)).toBe(1); // producer 1 aborted at 2 < hw; producer 2 committed at 3
    expect(log.lastStableOffset(4)).toBe(4);
    // The bumped epoch fences the old one (KIP-890).
    await expect(log.append(data(1, 0, 1, 'late'), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'INVALID_PRODUCER_EPOCH',
    });
    const read = await log.read(0, 1 << 20, { maxOffset: 4, isolation: 'read_committed' });
    expect(read.abortedTransactions).toEqual([{ producerId: 1, firstOffset: 0 }]);
    const committed = decodeRecords(read.batches, 0, read.abortedTransactions).map((r) =>
      r.value?.toString(),
    );
    expect(committed).toEqual(['b1']);
    expect(decodeRecords(read.batches, 0).map((r) => r.value?.toString())).toEqual(['a1', 'b1']);

    await log.append(data(3, 0, 0, 'c1'), { leaderEpoch: 0 }); // 4, left open
    await log.close();
    await forgetCleanShutdown(dir);
    log = await openLog(dir, undefined, clock);
    expect(log.openTransactions()).toEqual([{ producerId: 3, epoch: 0, firstOffset: 4 }]);
    expect(log.lastStableOffset(5)).toBe(4);
    const again = await log.read(0, 1 << 20, { maxOffset: 4, isolation: 'read_committed' });
    expect(again.abortedTransactions).toEqual([{ producerId: 1, firstOffset: 0 }]);
  });
});
