/**
 * Compaction while the log is in use, with passes on the real worker thread: appends during a pass
 * lose nothing and keep their offsets; closing or deleting a log in the middle of a pass stops it
 * cleanly; the LogManager runs the cleaner on its timer over leaders' and followers' logs alike,
 * and its event loop stays responsive while a pass runs.
 */
import { promises as fs, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { LogManager } from '../../../services/broker/log/log-manager';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { cleanerFor, compactConfig, fold, keyedBatch, readRecords, type KV } from './compaction-helpers';
import { TempDirs, listPartitionFiles, openLog, partitionDir } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

jest.setTimeout(60_000);

async function fill(log: SegmentedLog, batches: number, keys: number, tag: string): Promise<KV[]> {
  const written: KV[] = [];
  for (let i = 0; i < batches; i++) {
    const records = [
      { key: `k${i % keys}`, value: `${tag}-${i}` },
      { key: `k${(i * 7) % keys}`, value: i % 11 === 0 ? null : `${tag}-${i}b` },
    ];
    await log.append(keyedBatch(records), { leaderEpoch: 0 });
    written.push(...records);
  }
  return written;
}

describe('compaction while the log is in use', () => {
  it('appends made while a pass runs (and swaps segments) lose nothing', async () => {
    const clock = new ManualClock();
    const log = await openLog(await dirs.make(), compactConfig({ segmentBytes: 8192 }), clock);
    const written = await fill(log, 2000, 200, 'before');
    const cleaner = cleanerFor([log], clock, { worker: true, config: { ioBytesPerSecond: 2_000_000 } });
    const pass = cleaner.clean(log);
    let appended = 0;
    let passDone = false;
    void pass.finally(() => (passDone = true));
    while (!passDone || appended < 50) {
      const records = [{ key: `k${appended % 300}`, value: `during-${appended}` }];
      const result = await log.append(keyedBatch(records), { leaderEpoch: 0 });
      expect(result.baseOffset).toBe(4000 + appended);
      written.push(...records);
      appended++;
    }
    const summary = await pass;
    expect(summary).toBeDefined();
    const records = await readRecords(log);
    expect(fold(records)).toEqual(fold(written));
    expect(log.logEndOffset).toBe(4000 + appended);
    // Everything appended during the pass is still there, record for record.
    expect(records.filter((r) => r.offset >= 4000).map((r) => r.value)).toEqual(
      Array.from({ length: appended }, (_, i) => `during-${i}`),
    );
    await cleaner.close();
    await log.close();
  });

  it('close() in the middle of a pass stops it; the log reopens whole and cleans later', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    let log = await openLog(dataDir, compactConfig({ segmentBytes: 8192 }), clock);
    const written = await fill(log, 2000, 100, 'x');
    const cleaner = cleanerFor([log], clock, { worker: true, config: { ioBytesPerSecond: 1_000_000 } });
    const pass = cleaner.clean(log);
    await new Promise((r) => setTimeout(r, 150));
    await log.close();
    expect(await pass).toBeUndefined(); // aborted
    expect(cleaner.stats.passesAborted).toBe(1);
    expect((await listPartitionFiles(dataDir)).filter((f) => /\.(cleaned|swap|deleted)$/.test(f))).toEqual(
      [],
    );
    log = await openLog(dataDir, compactConfig({ segmentBytes: 8192 }), clock);
    expect(fold(await readRecords(log))).toEqual(fold(written));
    await cleanerFor([log], clock).clean(log);
    expect(fold(await readRecords(log))).toEqual(fold(written));
    await cleaner.close();
    await log.close();
  });

  it('close() while a cleaned segment is being committed is an abort, not a failure', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    let log = await openLog(dataDir, compactConfig({ segmentBytes: 8192 }), clock);
    const written = await fill(log, 2000, 100, 'x');
    // In-process passes see the abort at once, so the commit's failure and the abort always meet.
    const cleaner = cleanerFor([log], clock);
    let closing: Promise<void> | undefined;
    log.compaction.swapHook = (step) => {
      if (step !== 'cleaned-written' || closing) return;
      // The race close() can lose: the worker, told to stop, discards the segment it handed over
      // just before the commit renames it.
      for (const name of readdirSync(partitionDir(dataDir)))
        if (name.endsWith('.cleaned')) rmSync(path.join(partitionDir(dataDir), name));
      closing = log.close();
    };
    expect(await cleaner.clean(log)).toBeUndefined(); // aborted, not a KAFKA_STORAGE_ERROR
    await closing;
    expect(cleaner.stats).toMatchObject({ passesAborted: 1, errors: 0 });
    log = await openLog(dataDir, compactConfig({ segmentBytes: 8192 }), clock);
    expect(fold(await readRecords(log))).toEqual(fold(written));
    expect(await cleanerFor([log], clock).clean(log)).toBeDefined(); // not marked uncleanable
    await cleaner.close();
    await log.close();
  });

  it('delete() in the middle of a pass stops it and removes the folder', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    const log = await openLog(dataDir, compactConfig({ segmentBytes: 8192 }), clock);
    await fill(log, 1500, 100, 'x');
    const cleaner = cleanerFor([log], clock, { worker: true, config: { ioBytesPerSecond: 1_000_000 } });
    const pass = cleaner.clean(log);
    await new Promise((r) => setTimeout(r, 100));
    await log.delete();
    await pass;
    await expect(fs.access(partitionDir(dataDir))).rejects.toThrow();
    await cleaner.close();
  });
});

describe('the LogManager runs the cleaner', () => {
  it('on its timer, over every compacted log (the storage layer does not know leaders from followers)', async () => {
    const clock = new ManualClock();
    const manager = new LogManager({
      dataDir: await dirs.make(),
      clock,
      logger: silentLogger(),
      defaultConfig: compactConfig(),
      cleaner: { backoffMs: 1000 },
    });
    await manager.open();
    try {
      const a = (await manager.getOrCreate('changelog', 0)) as SegmentedLog;
      const b = (await manager.getOrCreate('changelog', 1)) as SegmentedLog;
      const plain = (await manager.getOrCreate(
        'events',
        0,
        compactConfig({ cleanupPolicy: 'delete' }),
      )) as SegmentedLog;
      const models = [];
      for (const log of [a, b, plain]) models.push(fold(await fill(log, 300, 10, log.topic)));
      expect(a.dirtyRatio).toBe(1);
      expect(plain.dirtyRatio).toBe(0);
      const sizes = [a.sizeBytes, b.sizeBytes, plain.sizeBytes];

      // The event loop keeps turning while the worker cleans: count timer ticks during the round.
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 5);
      clock.advance(1000);
      const deadline = Date.now() + 30_000;
      while (manager.cleaner!.stats.passes < 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      clearInterval(ticker);
      expect(manager.cleaner!.stats.passes).toBe(2);
      expect(ticks).toBeGreaterThan(0);
      expect(a.sizeBytes).toBeLessThan(sizes[0]);
      expect(b.sizeBytes).toBeLessThan(sizes[1]);
      expect(plain.sizeBytes).toBe(sizes[2]);
      expect(manager.cleaner!.dirtyRatios()).toEqual([
        { topic: 'changelog', partition: 0, dirtyRatio: 0 },
        { topic: 'changelog', partition: 1, dirtyRatio: 0 },
      ]);
      for (const [i, log] of [a, b, plain].entries()) expect(fold(await readRecords(log))).toEqual(models[i]);
    } finally {
      await manager.closeAll();
    }
  });
});
