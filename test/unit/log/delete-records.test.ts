/**
 * advanceLogStartOffset (DeleteRecords): the start moves to any offset up to the log end, reads
 * below it are OFFSET_OUT_OF_RANGE, whole segments below it are deleted, the one holding it stays,
 * and the new start survives a clean restart and a crash.
 */
import { promises as fs } from 'node:fs';
import { ManualClock } from '../../../services/common/clock';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { batchHeaders, buildBatch } from './batches';
import { TempDirs, listPartitionFiles, openLog, partitionDir, readAll, testConfig } from './helpers';

const dirs = new TempDirs();
let log: SegmentedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  await dirs.cleanup();
});

/** 40 batches of 2 records (offsets 0..79) in segments of about 3 batches each. */
async function filledLog(dataDir: string): Promise<SegmentedLog> {
  const opened = await openLog(dataDir, testConfig({ segmentBytes: 600 }), new ManualClock());
  for (let i = 0; i < 40; i++) {
    await opened.append(buildBatch({ records: 2, valueBytes: 40 }), { leaderEpoch: i < 20 ? 0 : 1 });
  }
  return opened;
}

describe('advanceLogStartOffset', () => {
  it('moves the start inside a segment, deletes the segments wholly below it, refuses reads below it', async () => {
    const dataDir = await dirs.make();
    log = await filledLog(dataDir);
    const bases = log.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThan(5);
    const target = bases[3] + 1; // inside the fourth segment, in the middle of a batch
    const sizeBefore = log.sizeBytes;

    const deleted = await log.advanceLogStartOffset(target);

    expect(log.logStartOffset).toBe(target);
    expect(log.segmentBaseOffsets()).toEqual(bases.slice(3));
    expect(deleted).toBe(sizeBefore - log.sizeBytes);
    expect(deleted).toBeGreaterThan(0);
    const files = await listPartitionFiles(dataDir);
    for (const base of bases.slice(0, 3)) {
      expect(files).not.toContain(`${String(base).padStart(20, '0')}.log`);
    }
    await expect(log.read(target - 1, 1000)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    await expect(log.read(0, 1000)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    // The batch holding the start is returned whole, as Kafka's reads do.
    expect(batchHeaders((await log.read(target, 1000)).batches)[0].baseOffset).toBe(target - 1);
    expect(batchHeaders(await readAll(log)).at(-1)?.baseOffset).toBe(78);
  });

  it('keeps the start across a clean restart and a crash', async () => {
    const dataDir = await dirs.make();
    log = await filledLog(dataDir);
    await log.advanceLogStartOffset(33);
    await log.close();
    log = await openLog(dataDir, testConfig({ segmentBytes: 600 }));
    expect(log.logStartOffset).toBe(33);
    await expect(log.read(32, 1000)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });

    await log.advanceLogStartOffset(41);
    // A crash: the files as they are while the log is open (no clean close rewrites anything).
    const crashDir = await dirs.make();
    await fs.cp(partitionDir(dataDir), partitionDir(crashDir), { recursive: true });
    const crashed = await openLog(crashDir, testConfig({ segmentBytes: 600 }));
    try {
      expect(crashed.logStartOffset).toBe(41);
      expect(crashed.logEndOffset).toBe(80);
      await expect(crashed.read(40, 1000)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    } finally {
      await crashed.close();
    }
  });

  it('never moves back, refuses offsets beyond the log end, and may empty the log to its end', async () => {
    log = await filledLog(await dirs.make());
    expect(await log.advanceLogStartOffset(10)).toBeGreaterThanOrEqual(0);
    expect(await log.advanceLogStartOffset(4)).toBe(0);
    expect(log.logStartOffset).toBe(10);
    await expect(log.advanceLogStartOffset(81)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    await expect(log.advanceLogStartOffset(-1)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(log.logStartOffset).toBe(10);

    await log.advanceLogStartOffset(80);
    expect(log.logStartOffset).toBe(80);
    expect(log.segmentBaseOffsets()).toHaveLength(1); // the active segment stays
    expect((await log.read(80, 1000)).batches).toHaveLength(0);
    await log.append(buildBatch({ records: 2 }), { leaderEpoch: 1 });
    expect(batchHeaders(await readAll(log)).map((h) => h.baseOffset)).toEqual([80]);
  });

  it('drops the leader epochs that end below the new start', async () => {
    log = await filledLog(await dirs.make());
    expect(log.epochEntries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 40 },
    ]);
    await log.advanceLogStartOffset(30);
    expect(log.epochEntries()).toEqual([
      { epoch: 0, startOffset: 30 },
      { epoch: 1, startOffset: 40 },
    ]);
    await log.advanceLogStartOffset(50);
    expect(log.epochEntries()).toEqual([{ epoch: 1, startOffset: 50 }]);
  });
});
