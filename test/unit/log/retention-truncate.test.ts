/**
 * Retention by time and by size on real segments (logStartOffset advances, survives a restart,
 * reads below it are OFFSET_OUT_OF_RANGE, the active segment is rolled when it expired too), and
 * truncateTo at batch boundaries, mid-segment and across segments.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ManualClock } from '../../../services/common/clock';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { batchHeaders, buildBatch, offsetsIn } from './batches';
import {
  TempDirs,
  forgetCleanShutdown,
  listPartitionFiles,
  openLog,
  partitionDir,
  readAll,
  testConfig,
} from './helpers';

const dirs = new TempDirs();
let log: SegmentedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  await dirs.cleanup();
});

/** Appends `count` 2-record batches stamped with the clock's time, advancing it 1 s per batch. */
async function appendTimed(target: SegmentedLog, clock: ManualClock, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await target.append(buildBatch({ records: 2, valueBytes: 40, timestampMs: clock.nowMs() }), {
      leaderEpoch: 0,
    });
    clock.advance(1000);
  }
}

describe('retention', () => {
  it('by time: deletes whole expired segments, advances logStartOffset, which survives a restart', async () => {
    const dataDir = await dirs.make();
    const clock = new ManualClock();
    const config = testConfig({ segmentBytes: 600, retentionMs: 10_000 });
    log = await openLog(dataDir, config, clock);
    await appendTimed(log, clock, 40);
    const segmentsBefore = log.segmentBaseOffsets();
    const sizeBefore = log.sizeBytes;
    const deleted = await log.applyRetention(clock.nowMs());
    expect(deleted).toBeGreaterThan(0);
    expect(log.sizeBytes).toBe(sizeBefore - deleted);
    const start = log.logStartOffset;
    expect(start).toBe(log.segmentBaseOffsets()[0]);
    expect(segmentsBefore).toContain(start);
    // what is left: every segment but the oldest kept one is newer than the retention
    await expect(log.read(start - 1, 100)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    expect(batchHeaders((await log.read(start, 100)).batches)[0].baseOffset).toBe(start);
    const files = await listPartitionFiles(dataDir);
    expect(files).not.toContain('00000000000000000000.log');
    expect(files).not.toContain('00000000000000000000.index');

    await log.close();
    log = await openLog(dataDir, config, clock);
    expect(log.logStartOffset).toBe(start);
    await expect(log.read(start - 1, 100)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    await log.close();
    await forgetCleanShutdown(dataDir);
    log = await openLog(dataDir, config, clock);
    expect(log.logStartOffset).toBe(start);
  });

  it('by time: nothing expires at exactly retentionMs', async () => {
    const clock = new ManualClock();
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 100, retentionMs: 10_000 }), clock);
    await log.append(buildBatch({ timestampMs: clock.nowMs() }), { leaderEpoch: 0 });
    await log.append(buildBatch({ timestampMs: clock.nowMs() + 20_000 }), { leaderEpoch: 0 }); // rolls: segment 0 holds one batch
    expect(log.segmentBaseOffsets()).toEqual([0, 1]);
    expect(await log.applyRetention(clock.nowMs() + 10_000)).toBe(0);
    expect(await log.applyRetention(clock.nowMs() + 10_001)).toBeGreaterThan(0);
    expect(log.logStartOffset).toBe(1);
  });

  it('by size: deletes oldest segments while the rest stays >= retentionBytes', async () => {
    const clock = new ManualClock();
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 600, retentionBytes: 1500 }), clock);
    await appendTimed(log, clock, 40);
    const deleted = await log.applyRetention(clock.nowMs());
    expect(deleted).toBeGreaterThan(0);
    expect(log.sizeBytes).toBeGreaterThanOrEqual(1500);
    // deleting one more segment would have gone below the limit
    const oldest = await fs.stat(
      path.join(log.dir, `${String(log.segmentBaseOffsets()[0]).padStart(20, '0')}.log`),
    );
    expect(log.sizeBytes - oldest.size).toBeLessThan(1500);
    await expect(log.read(0, 100)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
  });

  it('-1 disables both', async () => {
    const clock = new ManualClock();
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 300 }), clock);
    await appendTimed(log, clock, 20);
    expect(await log.applyRetention(clock.nowMs() + 1e12)).toBe(0);
  });

  it('an entirely expired log rolls its active segment, deletes everything, and keeps appending at the old end', async () => {
    const dataDir = await dirs.make();
    const clock = new ManualClock();
    const config = testConfig({ segmentBytes: 600, retentionMs: 1000 });
    log = await openLog(dataDir, config, clock);
    await appendTimed(log, clock, 10);
    const leo = log.logEndOffset;
    clock.advance(60_000);
    expect(await log.applyRetention(clock.nowMs())).toBeGreaterThan(0);
    expect(log.segmentBaseOffsets()).toEqual([leo]);
    expect(log.logStartOffset).toBe(leo);
    expect(log.sizeBytes).toBe(0);
    expect((await log.read(leo, 100)).batches.length).toBe(0);
    await expect(log.append(buildBatch(), { leaderEpoch: 0 })).resolves.toMatchObject({ baseOffset: leo });
    await log.close();
    log = await openLog(dataDir, config, clock);
    expect(log.logStartOffset).toBe(leo);
    expect(log.logEndOffset).toBe(leo + 1);
  });

  it('never deletes past maxOffset (the high watermark)', async () => {
    const clock = new ManualClock();
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 300, retentionMs: 1000 }), clock);
    await appendTimed(log, clock, 12);
    clock.advance(60_000);
    await log.applyRetention(clock.nowMs(), { maxOffset: 6 });
    expect(log.logStartOffset).toBeLessThanOrEqual(6);
    expect(log.logStartOffset).toBeGreaterThan(0);
  });

  it('a crash after the log-start-offset checkpoint but before the files went: they are deleted at load', async () => {
    const dataDir = await dirs.make();
    const clock = new ManualClock();
    const config = testConfig({ segmentBytes: 300 });
    log = await openLog(dataDir, config, clock);
    await appendTimed(log, clock, 12);
    const bases = log.segmentBaseOffsets();
    await log.close();
    log = undefined;
    const { encodeOffsetCheckpoint } = await import('../../../services/broker/log/checkpoint');
    await fs.writeFile(
      path.join(partitionDir(dataDir), 'log-start-offset'),
      encodeOffsetCheckpoint(bases[2]),
    );
    log = await openLog(dataDir, config, clock);
    expect(log.segmentBaseOffsets()).toEqual(bases.slice(2));
    expect(log.logStartOffset).toBe(bases[2]);
  });
});

describe('truncateTo', () => {
  async function filled(segmentBytes = 400): Promise<SegmentedLog> {
    const l = await openLog(await dirs.make(), testConfig({ segmentBytes, indexIntervalBytes: 100 }));
    for (let i = 0; i < 30; i++) await l.append(buildBatch({ records: 3 }), { leaderEpoch: 0 }); // batches at 0,3,6,...
    return l;
  }

  it.each([
    { name: 'at a batch boundary', to: 30, leo: 30 },
    { name: 'inside a batch: the whole batch goes', to: 31, leo: 30 },
    { name: 'to the very start', to: 0, leo: 0 },
    { name: 'at the end (no-op)', to: 90, leo: 90 },
    { name: 'past the end (no-op)', to: 500, leo: 90 },
  ])('$name', async ({ to, leo }) => {
    log = await filled();
    const before = await readAll(log);
    await log.truncateTo(to);
    expect(log.logEndOffset).toBe(leo);
    const after = await readAll(log);
    expect(before.subarray(0, after.length).equals(after)).toBe(true);
    expect(offsetsIn(after)).toEqual(Array.from({ length: leo }, (_, i) => i));
    await expect(log.append(buildBatch({ records: 2 }), { leaderEpoch: 1 })).resolves.toMatchObject({
      baseOffset: leo,
    });
    expect(offsetsIn(await readAll(log))).toEqual(Array.from({ length: leo + 2 }, (_, i) => i));
  });

  it('deletes later segments, survives clean and unclean reopen, and the indexes stay right', async () => {
    log = await filled(300);
    const dataDir = path.dirname(log.dir);
    const bases = log.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThan(4);
    const cut = bases[2] + 3; // inside the third segment
    await log.truncateTo(cut);
    expect(log.segmentBaseOffsets()).toEqual(bases.slice(0, 3));
    const files = await listPartitionFiles(dataDir);
    for (const b of bases.slice(3)) expect(files).not.toContain(`${String(b).padStart(20, '0')}.log`);
    for (let i = 0; i < 10; i++) await log.append(buildBatch({ records: 3 }), { leaderEpoch: 1 });
    const expected = await readAll(log);
    for (const unclean of [false, true]) {
      await log.close();
      if (unclean) await forgetCleanShutdown(dataDir);
      log = await openLog(dataDir, testConfig({ segmentBytes: 300, indexIntervalBytes: 100 }));
      expect((await readAll(log)).equals(expected)).toBe(true);
      for (let offset = 0; offset < log.logEndOffset; offset += 2) {
        expect(batchHeaders((await log.read(offset, 1)).batches)[0].baseOffset).toBe(offset - (offset % 3));
      }
    }
  });

  it('below the log start offset: starts over empty at that offset', async () => {
    const clock = new ManualClock();
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 300, retentionBytes: 0 }), clock);
    await appendTimed(log, clock, 10);
    await log.applyRetention(clock.nowMs());
    const start = log.logStartOffset;
    expect(start).toBeGreaterThan(2);
    await log.truncateTo(2);
    expect(log.logStartOffset).toBe(2);
    expect(log.logEndOffset).toBe(2);
    expect(log.segmentBaseOffsets()).toEqual([2]);
    await expect(log.append(buildBatch(), { leaderEpoch: 0 })).resolves.toMatchObject({ baseOffset: 2 });
  });

  it('appends made during a truncation wait for it and land after the new end', async () => {
    log = await filled();
    const truncation = log.truncateTo(9);
    const append = log.append(buildBatch({ records: 1 }), { leaderEpoch: 0 });
    await truncation;
    await expect(append).resolves.toMatchObject({ baseOffset: 9 });
  });
});
