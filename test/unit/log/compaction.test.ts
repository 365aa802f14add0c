/**
 * Log compaction on real files, passes run inline (deterministic): what a compacted log keeps,
 * where the cleaner stops (active segment, min.compaction.lag.ms, high watermark), tombstones and
 * their delete horizon, the checkpoint across restarts, keyless records refused at append,
 * retention and truncation on compacted logs, a key map too small for one pass, and idempotent
 * producers across compaction.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { encodeBatch, iterateBatches } from '../../../services/common/records';
import { CompressionCodec, readBatchHeader } from '../../../services/common/records/layout';
import { DELETE_HORIZON_BIT } from '../../../services/broker/log/cleaner/batch-filter';
import { CLEANER_CHECKPOINT_FILE } from '../../../services/broker/log/cleaner-checkpoint';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { T0, cleanerFor, compactConfig, fold, keyedBatch, readRecords, type KV } from './compaction-helpers';
import { TempDirs, forgetCleanShutdown, openLog, partitionDir, readAll } from './helpers';

const dirs = new TempDirs();
const open: SegmentedLog[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close().catch(() => undefined)));
  await dirs.cleanup();
});

async function track(log: Promise<SegmentedLog>): Promise<SegmentedLog> {
  const l = await log;
  open.push(l);
  return l;
}

/** Appends one record per batch: key k<i % keys>, value v<i>. */
async function writeKeys(log: SegmentedLog, count: number, keys: number, from = 0): Promise<void> {
  for (let i = from; i < from + count; i++)
    await log.append(keyedBatch([{ key: `k${i % keys}`, value: `v${i}` }]), { leaderEpoch: 0 });
}

async function errorOf(p: Promise<unknown>): Promise<TideError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TideError);
  return err as TideError;
}

describe('records without a key', () => {
  it.each([
    ['uncompressed', CompressionCodec.None],
    ['gzip', CompressionCodec.Gzip],
    ['snappy', CompressionCodec.Snappy],
  ])(
    'are refused with INVALID_RECORD on a compacted topic (%s), leaving the log unchanged',
    async (_name, compression) => {
      const log = await track(openLog(await dirs.make(), compactConfig()));
      await log.append(keyedBatch([{ key: 'a', value: '1' }]), { leaderEpoch: 0 });
      const keyless = encodeBatch(
        [
          { key: Buffer.from('b'), value: Buffer.from('2') },
          { key: null, value: Buffer.from('3') },
        ],
        { compression },
      );
      const err = await errorOf(
        log.append(Buffer.concat([keyedBatch([{ key: 'c', value: '4' }]), keyless]), { leaderEpoch: 0 }),
      );
      expect(err.code).toBe('INVALID_RECORD');
      expect(err.message).toMatch(
        /record batch 1 .*record 1 has no key: topics with cleanup.policy=compact need a key/,
      );
      expect(log.logEndOffset).toBe(1);
      expect(await readRecords(log)).toEqual([{ offset: 0, key: 'a', value: '1', timestampMs: T0 }]);
    },
  );

  it('are accepted on delete topics (the fast path reads no records)', async () => {
    const log = await track(openLog(await dirs.make(), compactConfig({ cleanupPolicy: 'delete' })));
    await log.append(encodeBatch([{ key: null, value: Buffer.from('x') }]), { leaderEpoch: 0 });
    expect(log.logEndOffset).toBe(1);
  });

  it('a batch claiming a delete horizon (attribute bit 6) is refused on every topic', async () => {
    const log = await track(openLog(await dirs.make(), compactConfig({ cleanupPolicy: 'delete' })));
    const b = keyedBatch([{ key: 'a', value: '1' }]);
    b.writeInt16BE(b.readInt16BE(21) | DELETE_HORIZON_BIT, 21);
    const { writeBatchCrc } = await import('../../../services/common/records/layout');
    writeBatchCrc(b);
    const err = await errorOf(log.append(b, { leaderEpoch: 0 }));
    expect(err.code).toBe('INVALID_RECORD');
    expect(err.message).toMatch(/delete horizon/);
  });
});

describe('a compacted log', () => {
  it('keeps the latest record per key below the active segment; offsets, order and timestamps unchanged', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig(), clock));
    await writeKeys(log, 300, 7);
    const before = await readRecords(log);
    const activeBase = log.segmentBaseOffsets().at(-1)!;
    const cleaner = cleanerFor([log], clock);
    const pass = await cleaner.clean(log);
    expect(pass).toMatchObject({ endOffset: activeBase });
    const after = await readRecords(log);
    // Below the active segment: exactly the last record of each key there.
    const lastBelow = new Map<string, number>();
    for (const r of before) if (r.offset < activeBase) lastBelow.set(r.key!, r.offset);
    expect(after.filter((r) => r.offset < activeBase).map((r) => r.offset)).toEqual(
      [...lastBelow.values()].sort((a, b) => a - b),
    );
    // The active segment is untouched.
    expect(after.filter((r) => r.offset >= activeBase)).toEqual(before.filter((r) => r.offset >= activeBase));
    // Every kept record is the same record as before (same offset, key, value, timestamp).
    const byOffset = new Map(before.map((r) => [r.offset, r]));
    for (const r of after) expect(r).toEqual(byOffset.get(r.offset));
    expect(fold(after)).toEqual(fold(before));
    expect(log.logEndOffset).toBe(300);
    expect(log.logStartOffset).toBe(0);
    expect(log.dirtyRatio).toBe(0);
    expect(cleaner.stats).toMatchObject({
      passes: 1,
      errors: 0,
      segmentsCleaned: log.segmentBaseOffsets().length - 1,
    });
    expect(cleaner.stats.recordsRemoved).toBe(
      before.filter((r) => r.offset < activeBase).length - lastBelow.size,
    );
    await cleaner.close();
  });

  it('serves reads from any offset, gaps included: a consumer following nextOffset gets the next record kept', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig(), clock));
    await writeKeys(log, 200, 3);
    await cleanerFor([log], clock).clean(log);
    const after = await readRecords(log);
    for (let offset = 0; offset < log.logEndOffset; offset += 7) {
      const firstKept = after.find((r) => r.offset >= offset);
      let next = offset;
      let seen: number | undefined;
      while (seen === undefined && next < log.logEndOffset) {
        const { batches, nextOffset } = await log.read(next, 1);
        expect(batches.length).toBeGreaterThan(0);
        for (const { header } of iterateBatches(batches))
          expect(header.baseOffset + header.lastOffsetDelta).toBeGreaterThanOrEqual(next);
        seen = (await readRecords(log, next))[0]?.offset;
        next = nextOffset;
      }
      expect(seen).toBe(firstKept?.offset);
    }
    expect(await log.offsetForTimestamp(T0)).toEqual({ offset: after[0].offset, timestampMs: T0 });
  });

  it('cleans again what is dirty since, regrouping small cleaned segments', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig(), clock));
    const cleaner = cleanerFor([log], clock);
    await writeKeys(log, 200, 5);
    await cleaner.clean(log);
    const segmentsAfterFirst = log.segmentBaseOffsets().length;
    await writeKeys(log, 200, 5, 200);
    expect(log.dirtyRatio).toBeGreaterThan(0.5);
    const model = fold(await readRecords(log));
    await cleaner.clean(log);
    expect(fold(await readRecords(log))).toEqual(model);
    expect(log.segmentBaseOffsets().length).toBeLessThanOrEqual(segmentsAfterFirst + 2);
    const below = (await readRecords(log)).filter((r) => r.offset < log.segmentBaseOffsets().at(-1)!);
    expect(new Set(below.map((r) => r.key)).size).toBe(below.length); // one record per key
  });

  it('starts on its own only above min.cleanable.dirty.ratio (strictly)', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig({ minCleanableDirtyRatio: 1 }), clock));
    await writeKeys(log, 200, 5);
    const cleaner = cleanerFor([log], clock);
    expect(log.dirtyRatio).toBe(1);
    expect(await cleaner.runRound()).toEqual([]);
    log.updateConfig({ ...log.currentConfig, minCleanableDirtyRatio: 0.99 });
    expect(await cleaner.runRound()).toHaveLength(1);
    expect(log.dirtyRatio).toBe(0);
    expect(await cleaner.runRound()).toEqual([]);
  });

  it('leaves segments holding records newer than min.compaction.lag.ms', async () => {
    const clock = new ManualClock(T0 + 1000);
    const log = await track(openLog(await dirs.make(), compactConfig({ minCompactionLagMs: 10_000 }), clock));
    for (let i = 0; i < 300; i++)
      await log.append(keyedBatch([{ key: `k${i % 4}`, value: `v${i}` }], { timestampMs: T0 + i * 100 }), {
        leaderEpoch: 0,
      });
    const before = await readRecords(log);
    const cleaner = cleanerFor([log], clock);
    const pass = await cleaner.clean(log);
    // now - lag = T0 - 9000: every segment holds newer records, nothing is cleanable yet.
    expect(pass).toBeUndefined();
    clock.advance(15_000); // now - lag = T0 + 6000: records up to offset 60 are old enough
    const pass2 = await cleaner.clean(log);
    expect(pass2).toBeDefined();
    const after = await readRecords(log);
    for (const r of before) {
      if (r.timestampMs > clock.nowMs() - 10_000) expect(after.find((a) => a.offset === r.offset)).toEqual(r);
    }
    expect(after.length).toBeLessThan(before.length);
  });

  describe('max.compaction.lag.ms', () => {
    it('cleans a log whose dirty records passed the lag, whatever its dirty ratio', async () => {
      const clock = new ManualClock(T0);
      // A ratio no log exceeds: only the lag makes it due.
      const config = compactConfig({ minCleanableDirtyRatio: 1, maxCompactionLagMs: 10_000 });
      const log = await track(openLog(await dirs.make(), config, clock));
      await writeKeys(log, 300, 4);
      const before = await readRecords(log);
      const cleaner = cleanerFor([log], clock);
      // Young: not due, neither picked by a round nor cleaned when asked.
      clock.advance(9_000);
      expect(await cleaner.runRound()).toEqual([]);
      expect(await cleaner.clean(log)).toBeUndefined();
      clock.advance(1_001);
      const rounds = await cleaner.runRound();
      expect(rounds).toHaveLength(1);
      const after = await readRecords(log);
      // Every key at most once below where the pass ended; the latest values survive.
      const keys = after.filter((r) => r.offset < rounds[0].endOffset).map((r) => r.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(after.length).toBeLessThan(before.length);
      expect(fold(after)).toEqual(fold(before));
      // Cleaned: nothing dirty is overdue any more.
      expect(await cleaner.runRound()).toEqual([]);
    });

    it('rolls the active segment of a compacted log at the lag, so it can be cleaned', async () => {
      const clock = new ManualClock(T0);
      const log = await track(
        openLog(
          await dirs.make(),
          compactConfig({ segmentBytes: 1 << 20, maxCompactionLagMs: 5_000 }),
          clock,
        ),
      );
      await writeKeys(log, 10, 2);
      expect(log.segmentBaseOffsets()).toEqual([0]);
      clock.advance(5_001);
      await writeKeys(log, 1, 2, 10);
      expect(log.segmentBaseOffsets()).toEqual([0, 10]);
      // A delete-only log with the same setting does not roll.
      const plain = await track(
        openLog(
          await dirs.make(),
          compactConfig({ cleanupPolicy: 'delete', segmentBytes: 1 << 20, maxCompactionLagMs: 5_000 }),
          clock,
        ),
      );
      await writeKeys(plain, 10, 2);
      clock.advance(5_001);
      await writeKeys(plain, 1, 2, 10);
      expect(plain.segmentBaseOffsets()).toEqual([0]);
    });

    it('refuses a min.compaction.lag.ms above it', async () => {
      const err = await errorOf(
        openLog(await dirs.make(), compactConfig({ minCompactionLagMs: 20_000, maxCompactionLagMs: 10_000 })),
      );
      expect(err.code).toBe('INVALID_CONFIG');
      expect(err.message).toMatch(/minCompactionLagMs must not exceed maxCompactionLagMs \(10000\)/);
    });
  });

  it('never cleans at or above the high watermark the broker reports', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig(), clock));
    await writeKeys(log, 300, 3);
    const before = await readRecords(log);
    const hw = log.segmentBaseOffsets()[2] + 5;
    const pass = await cleanerFor([log], clock, { maxOffset: hw }).clean(log);
    expect(pass!.endOffset).toBe(log.segmentBaseOffsets()[2]);
    const after = await readRecords(log);
    expect(after.filter((r) => r.offset >= pass!.endOffset)).toEqual(
      before.filter((r) => r.offset >= pass!.endOffset),
    );
  });
});

describe('tombstones', () => {
  it('stay readable for delete.retention.ms after the cleaning that kept them, then go at the next cleaning', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig({ deleteRetentionMs: 60_000 }), clock));
    await writeKeys(log, 100, 4);
    await log.append(keyedBatch([{ key: 'k1', value: null }]), { leaderEpoch: 0 });
    await writeKeys(log, 100, 4, 1000); // k0..k3 again, then delete k1 once more at the end of the dirty part
    await log.append(keyedBatch([{ key: 'k2', value: null }]), { leaderEpoch: 0 });
    await writeKeys(log, 100, 1, 5000); // only k0: rolls the tombstone below the active segment
    const cleaner = cleanerFor([log], clock);
    await cleaner.clean(log);
    let records = await readRecords(log);
    const tombstone = records.find((r) => r.key === 'k2');
    expect(tombstone).toMatchObject({ value: null });
    expect(records.filter((r) => r.key === 'k2')).toHaveLength(1); // older k2 records are gone
    expect(log.compaction.checkpoint?.nextDeleteHorizonMs).toBe(clock.nowMs() + 60_000);

    clock.advance(59_999);
    expect(await cleaner.runRound()).toEqual([]); // nothing dirty, horizon not reached
    clock.advance(1);
    const passes = await cleaner.runRound(); // the horizon alone brings the cleaner back
    expect(passes).toHaveLength(1);
    expect(passes[0].stats.tombstonesDropped).toBe(1);
    records = await readRecords(log);
    expect(records.filter((r) => r.key === 'k2')).toEqual([]);
    expect(log.compaction.checkpoint?.nextDeleteHorizonMs).toBe(-1);
    expect(fold(records).has('k2')).toBe(false);
  });

  it('a tombstone in the active segment is not touched', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig(), clock));
    await writeKeys(log, 150, 2);
    await log.append(keyedBatch([{ key: 'k0', value: null }]), { leaderEpoch: 0 });
    await cleanerFor([log], clock).clean(log);
    clock.advance(10 * 60_000);
    await cleanerFor([log], clock).clean(log, { force: true });
    const records = await readRecords(log);
    expect(records.at(-1)).toMatchObject({ key: 'k0', value: null, offset: 150 });
    expect(fold(records).has('k0')).toBe(false);
  });

  it('marks the rewritten batch with bit 6 and the horizon in baseTimestamp', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig({ deleteRetentionMs: 5000 }), clock));
    await log.append(
      keyedBatch([
        { key: 'x', value: '1' },
        { key: 'y', value: null },
      ]),
      { leaderEpoch: 0 },
    );
    await writeKeys(log, 150, 3);
    await cleanerFor([log], clock).clean(log);
    const { batches } = await log.read(0, 100);
    const h = readBatchHeader(batches, 0);
    expect(h.attributes & DELETE_HORIZON_BIT).toBe(DELETE_HORIZON_BIT);
    expect(h.baseTimestamp).toBe(clock.nowMs() + 5000);
    expect((await readRecords(log)).slice(0, 2)).toEqual([
      { offset: 0, key: 'x', value: '1', timestampMs: T0 },
      { offset: 1, key: 'y', value: null, timestampMs: T0 },
    ]);
  });
});

describe('across restarts', () => {
  it.each([
    ['a clean shutdown', false],
    ['a crash (no clean-shutdown marker)', true],
  ])('keeps the cleaned segments, the checkpoint and the dirty ratio after %s', async (_name, crash) => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    const config = compactConfig();
    let log = await track(openLog(dataDir, config, clock));
    await writeKeys(log, 300, 6);
    await cleanerFor([log], clock).clean(log);
    await writeKeys(log, 100, 6, 300);
    const records = await readRecords(log);
    const checkpoint = log.compaction.checkpoint;
    const ratio = log.dirtyRatio;
    await log.close();
    if (crash) {
      await forgetCleanShutdown(dataDir);
      await fs.rm(path.join(partitionDir(dataDir), 'recovery-point'));
    }
    log = await track(openLog(dataDir, config, clock));
    expect(await readRecords(log)).toEqual(records);
    expect(log.compaction.checkpoint).toEqual(checkpoint);
    expect(log.dirtyRatio).toBeCloseTo(ratio, 10);
    expect(await fs.readFile(path.join(partitionDir(dataDir), CLEANER_CHECKPOINT_FILE), 'ascii')).toMatch(
      /^v1 \d+ -?\d+ [0-9a-f]{8}\n$/,
    );
    await writeKeys(log, 10, 6, 400);
    expect(log.logEndOffset).toBe(410);
  });

  it('recovers a cleaned log whose cleanup.policy went back to delete (gaps stay acceptable)', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    let log = await track(openLog(dataDir, compactConfig(), clock));
    await writeKeys(log, 300, 3);
    await cleanerFor([log], clock).clean(log);
    const records = await readRecords(log);
    await log.close();
    await forgetCleanShutdown(dataDir);
    await fs.rm(path.join(partitionDir(dataDir), 'recovery-point'));
    log = await track(openLog(dataDir, compactConfig({ cleanupPolicy: 'delete' }), clock));
    expect(await readRecords(log)).toEqual(records);
  });
});

describe('retention and truncation on compacted logs', () => {
  it('cleanup.policy=compact alone ignores retention.ms and retention.bytes', async () => {
    const clock = new ManualClock(T0 + 1e9);
    const log = await track(
      openLog(await dirs.make(), compactConfig({ retentionMs: 1, retentionBytes: 1 }), clock),
    );
    await writeKeys(log, 200, 50);
    expect(await log.applyRetention(clock.nowMs())).toBe(0);
    expect(log.logStartOffset).toBe(0);
  });

  it('compact,delete does both', async () => {
    const clock = new ManualClock(T0 + 1e9);
    const log = await track(
      openLog(await dirs.make(), compactConfig({ cleanupPolicy: 'compact,delete', retentionMs: 1 }), clock),
    );
    await writeKeys(log, 200, 50);
    await cleanerFor([log], clock).clean(log);
    expect(await log.applyRetention(clock.nowMs())).toBeGreaterThan(0);
    expect(log.logStartOffset).toBe(200);
  });

  it('a truncation below the checkpoint lowers it: the new records count as dirty', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig(), clock));
    await writeKeys(log, 300, 3);
    await cleanerFor([log], clock).clean(log);
    const cleanEnd = log.compaction.checkpoint!.firstDirtyOffset;
    await log.truncateTo(cleanEnd - 30);
    expect(log.compaction.checkpoint!.firstDirtyOffset).toBeLessThanOrEqual(cleanEnd - 30);
    expect(log.compaction.checkpoint!.firstDirtyOffset).toBe(log.logEndOffset);
    await writeKeys(log, 200, 3, 1000);
    const model = fold(await readRecords(log));
    await cleanerFor([log], clock).clean(log);
    expect(fold(await readRecords(log))).toEqual(model);
  });
});

describe('a key map too small for the whole dirty part', () => {
  it('cleans the prefix that fits, and the next passes finish the job with the same result', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig(), clock));
    for (let i = 0; i < 400; i++)
      await log.append(keyedBatch([{ key: `key-${i % 150}`, value: `v${i}` }]), { leaderEpoch: 0 });
    const model = fold(await readRecords(log));
    // 40 slots: 36 keys per pass.
    const cleaner = cleanerFor([log], clock, { config: { dedupeBufferBytes: 40 * 24 } });
    const first = await cleaner.clean(log);
    expect(first!.endOffset).toBeLessThan(log.segmentBaseOffsets().at(-1)!);
    expect(first!.stats.mapUtilization).toBeGreaterThan(0.5);
    let passes = 1;
    while (log.compaction.checkpoint!.firstDirtyOffset < log.segmentBaseOffsets().at(-1)! && passes < 50) {
      await cleaner.clean(log);
      passes++;
    }
    expect(passes).toBeGreaterThan(2);
    expect(fold(await readRecords(log))).toEqual(model);
    // One more full pass with a big map leaves one record per key below the active segment.
    await cleanerFor([log], clock).clean(log, { force: true });
    const below = (await readRecords(log)).filter((r) => r.offset < log.segmentBaseOffsets().at(-1)!);
    expect(new Set(below.map((r) => r.key)).size).toBe(below.length);
  });

  it('fails the pass (and skips the partition) when not even one batch fits', async () => {
    const clock = new ManualClock();
    const log = await track(openLog(await dirs.make(), compactConfig(), clock));
    const many: KV[] = Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    for (let i = 0; i < 40; i++) await log.append(keyedBatch(many), { leaderEpoch: 0 });
    const cleaner = cleanerFor([log], clock, { config: { dedupeBufferBytes: 10 * 24 } });
    const err = await errorOf(cleaner.clean(log));
    expect(err.message).toMatch(/cannot hold one batch of 50 records/);
    expect(cleaner.stats.errors).toBe(1);
    expect(cleaner.uncleanable.has('orders-0')).toBe(true);
    expect(await cleaner.runRound()).toEqual([]);
  });
});

describe('idempotent producers', () => {
  it('keep their last batch (as a header) so a retry is still recognised, even when the state is rebuilt from the log', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    const config = compactConfig();
    let log = await track(openLog(dataDir, config, clock));
    const pid = 77;
    for (let seq = 0; seq < 100; seq++)
      await log.append(
        keyedBatch([{ key: 'same', value: `v${seq}` }], { producerId: pid, baseSequence: seq }),
        { leaderEpoch: 0 },
      );
    // Other keys push the producer's batches out of the active segment and overwrite its key.
    for (let i = 0; i < 200; i++)
      await log.append(keyedBatch([{ key: i === 150 ? 'same' : `o${i % 5}`, value: 'x' }]), {
        leaderEpoch: 0,
      });
    await cleanerFor([log], clock).clean(log);
    const headers = [...iterateBatches(await readAll(log))].map((b) => b.header);
    // Empty headers only: the producer's last batch, plus any that ended a cleaned segment.
    const mine = headers.filter((h) => h.producerId === pid);
    expect(mine.every((h) => h.recordCount === 0 && h.sizeBytes === 61)).toBe(true);
    expect(mine.at(-1)).toMatchObject({ baseOffset: 99, baseSequence: 99, producerEpoch: 0 });
    expect(mine.length).toBeLessThan(10);
    const retry = keyedBatch([{ key: 'same', value: 'v99' }], { producerId: pid, baseSequence: 99 });
    expect(await log.append(Buffer.from(retry), { leaderEpoch: 0 })).toMatchObject({
      duplicate: true,
      baseOffset: 99,
    });

    // Rebuild the producer state from the log alone.
    await log.close();
    for (const f of await fs.readdir(partitionDir(dataDir)))
      if (f.endsWith('.snapshot')) await fs.rm(path.join(partitionDir(dataDir), f));
    log = await track(openLog(dataDir, config, clock));
    expect(await log.append(Buffer.from(retry), { leaderEpoch: 0 })).toMatchObject({
      duplicate: true,
      baseOffset: 99,
    });
    const next = keyedBatch([{ key: 'same', value: 'v100' }], { producerId: pid, baseSequence: 100 });
    expect(await log.append(next, { leaderEpoch: 0 })).toMatchObject({ duplicate: false });
  });
});
