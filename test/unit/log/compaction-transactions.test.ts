/**
 * Compaction of a log holding transactions (passes run inline): the cleaner stays below the LSO,
 * drops the records of aborted transactions (which never supersede committed ones), carries the
 * aborted-transaction index into the cleaned segment (read_committed keeps working, also after an
 * unclean reopen), and drops a marker only once its transaction has no batch left and its delete
 * horizon (delete.retention.ms) has passed.
 */
import { promises as fs } from 'node:fs';
import { ManualClock } from '../../../services/common/clock';
import {
  decodeRecords,
  encodeBatch,
  encodeControlBatch,
  iterateBatches,
} from '../../../services/common/records';
import { CONTROL_BIT } from '../../../services/common/records/layout';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { T0, cleanerFor, compactConfig, keyedBatch } from './compaction-helpers';
import { TempDirs, forgetCleanShutdown, openLog, partitionDir } from './helpers';

const dirs = new TempDirs();
const open: SegmentedLog[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close().catch(() => undefined)));
  await dirs.cleanup();
});

const RETENTION_MS = 60_000;
const config = compactConfig({ segmentBytes: 1024, deleteRetentionMs: RETENTION_MS });

async function openTracked(dir: string, clock: ManualClock): Promise<SegmentedLog> {
  const log = await openLog(dir, config, clock);
  open.push(log);
  return log;
}

const txn = (producerId: number, seq: number, key: string, value: string): Buffer =>
  encodeBatch([{ key: Buffer.from(key), value: Buffer.from(value), timestampMs: T0 }], {
    producerId,
    producerEpoch: 0,
    baseSequence: seq,
    transactional: true,
    nowMs: T0,
  });
const marker = (producerId: number, type: 'COMMIT' | 'ABORT'): Buffer =>
  encodeControlBatch({ type, producerId, producerEpoch: 1, coordinatorEpoch: 0, timestampMs: T0 });

let fillerSeq = 0;
/** Non-transactional keyed records that fill (and roll) segments, each key once. */
async function fill(log: SegmentedLog, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await log.append(keyedBatch([{ key: `f${fillerSeq++}`, value: 'x'.repeat(40) }]), { leaderEpoch: 0 });
}

/** read_committed view of the whole log: [offset, key, value] in order. */
async function committedView(log: SegmentedLog, hw = log.logEndOffset): Promise<string[]> {
  const out: string[] = [];
  let offset = log.logStartOffset;
  const bound = log.lastStableOffset(hw);
  while (offset < bound) {
    const read = await log.read(offset, 1 << 20, { maxOffset: bound, isolation: 'read_committed' });
    if (read.batches.length === 0) break;
    for (const r of decodeRecords(read.batches, offset, read.abortedTransactions))
      if (!r.key?.toString().startsWith('f')) out.push(`${r.key?.toString()}=${r.value?.toString()}`);
    offset = read.nextOffset;
  }
  return out;
}

async function everyBatch(log: SegmentedLog): Promise<{ control: number; values: string[] }> {
  let control = 0;
  const values: string[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const read = await log.read(offset, 1 << 20);
    if (read.batches.length === 0) break;
    for (const { header } of iterateBatches(read.batches)) if (header.attributes & CONTROL_BIT) control++;
    for (const r of decodeRecords(read.batches, offset)) values.push(r.value?.toString() ?? '');
    offset = read.nextOffset;
  }
  return { control, values };
}

describe('compaction with transactions', () => {
  it('drops aborted records, keeps committed ones and the aborted index, stays below the LSO', async () => {
    const dir = await dirs.make();
    const clock = new ManualClock(T0);
    let log = await openTracked(dir, clock);
    await log.append(txn(1, 0, 'a', 'committed'), { leaderEpoch: 0 }); // 0
    await log.append(marker(1, 'COMMIT'), { leaderEpoch: 0, origin: 'coordinator' }); // 1
    await log.append(txn(2, 0, 'a', 'aborted'), { leaderEpoch: 0 }); // 2: would supersede a=committed
    await fill(log, 3);
    await log.append(marker(2, 'ABORT'), { leaderEpoch: 0, origin: 'coordinator' });
    await fill(log, 30);
    const openAt = log.logEndOffset;
    await log.append(txn(3, 0, 'b', 'open'), { leaderEpoch: 0 }); // still open: the LSO
    await fill(log, 30);
    await log.append(keyedBatch([{ key: 'b', value: 'later' }]), { leaderEpoch: 0 }); // would supersede b=open
    await fill(log, 30);
    expect(log.lastStableOffset(log.logEndOffset)).toBe(openAt);
    const before = await committedView(log);
    expect(before).toEqual(['a=committed']);

    const pass = await cleanerFor([log], clock).clean(log, { force: true });
    expect(pass).toBeDefined();
    // Nothing at or above the open transaction was cleaned.
    expect(log.compaction.checkpoint?.firstDirtyOffset).toBeLessThanOrEqual(openAt);
    const after = await everyBatch(log);
    expect(after.values).not.toContain('aborted');
    expect(after.values).toContain('committed');
    expect(after.values).toContain('open');
    expect(await committedView(log)).toEqual(['a=committed']);
    // The cleaned segment still answers the aborted range (its .txnindex came along).
    const read = await log.read(0, 1 << 20, { maxOffset: openAt, isolation: 'read_committed' });
    expect(read.abortedTransactions).toEqual([{ producerId: 2, firstOffset: 2 }]);
    const files = await fs.readdir(partitionDir(dir));
    expect(files.filter((f) => f.endsWith('.txnindex'))).toHaveLength(1);

    await log.close();
    open.splice(0);
    await forgetCleanShutdown(dir);
    log = await openTracked(dir, clock);
    expect(log.openTransactions().map((t) => t.producerId)).toEqual([3]);
    const again = await log.read(0, 1 << 20, { maxOffset: openAt, isolation: 'read_committed' });
    expect(again.abortedTransactions).toEqual([{ producerId: 2, firstOffset: 2 }]);
    expect(await committedView(log)).toEqual(['a=committed']);
  });

  it('keeps a marker while its transaction has records, then drops it after delete.retention.ms', async () => {
    const dir = await dirs.make();
    const clock = new ManualClock(T0);
    const log = await openTracked(dir, clock);
    await fill(log, 2);
    await log.append(txn(1, 0, 'a', 'committed'), { leaderEpoch: 0 });
    await log.append(marker(1, 'COMMIT'), { leaderEpoch: 0, origin: 'coordinator' });
    await log.append(txn(2, 0, 'c', 'aborted'), { leaderEpoch: 0 });
    await log.append(marker(2, 'ABORT'), { leaderEpoch: 0, origin: 'coordinator' });
    await fill(log, 30);
    const cleaner = cleanerFor([log], clock);
    expect((await everyBatch(log)).control).toBe(2);

    await cleaner.clean(log, { force: true });
    // The aborted transaction has nothing left: its marker waits for its horizon; the commit's stays.
    expect((await everyBatch(log)).control).toBe(2);
    clock.advance(RETENTION_MS);
    await cleaner.clean(log, { force: true });
    expect((await everyBatch(log)).control).toBe(1);

    // a=committed superseded: its transaction empties, so the COMMIT marker goes after its horizon.
    await log.append(keyedBatch([{ key: 'a', value: 'plain' }]), { leaderEpoch: 0 });
    await fill(log, 30);
    await cleaner.clean(log, { force: true });
    expect((await everyBatch(log)).control).toBe(1);
    clock.advance(RETENTION_MS);
    await cleaner.clean(log, { force: true });
    const last = await everyBatch(log);
    expect(last.control).toBe(0);
    expect(last.values).not.toContain('committed');
    expect(log.openTransactions()).toEqual([]);
  });
});
