/**
 * Append and read through SegmentedLog on real files: round trips across many segment rolls,
 * reads at every offset, the maxOffset bound, byte limits, out-of-range offsets, LogAppendTime,
 * roll by size and by age, and that reads never see bytes still being written.
 */
import { promises as fs } from 'node:fs';
import { compressSync } from 'snappy';
import { OFFSET_RECORDS, writeBatchCrc } from '../../../services/common/records';
import { ManualClock } from '../../../services/common/clock';
import {
  TIMESTAMP_TYPE_BIT,
  batchCrcIsValid,
  readBatchHeader,
} from '../../../services/common/records/layout';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { BASE_TIMESTAMP_MS, batchHeaders, buildBatch, offsetsIn } from './batches';
import { TempDirs, listPartitionFiles, openLog, readAll, testConfig } from './helpers';

const dirs = new TempDirs();
let log: SegmentedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  await dirs.cleanup();
});

/** Appends `count` batches of `records` records each, one append call per batch. */
async function appendMany(
  target: SegmentedLog,
  count: number,
  records = 3,
  valueBytes = 20,
): Promise<Buffer[]> {
  const sent: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const batch = buildBatch({ records, valueBytes, timestampMs: BASE_TIMESTAMP_MS + i * 10 });
    sent.push(Buffer.from(batch));
    await target.append(batch, { leaderEpoch: 4 });
  }
  return sent;
}

describe('append and read', () => {
  it('assigns consecutive offsets and returns them', async () => {
    log = await openLog(await dirs.make());
    const first = await log.append(buildBatch({ records: 3 }), { leaderEpoch: 1 });
    const second = await log.append(buildBatch({ records: 2 }), { leaderEpoch: 1 });
    expect(first).toEqual({
      baseOffset: 0,
      lastOffset: 2,
      logAppendTimeMs: -1,
      logStartOffset: 0,
      duplicate: false,
    });
    expect(second).toMatchObject({ baseOffset: 3, lastOffset: 4 });
    expect(log.logEndOffset).toBe(5);
  });

  it('round-trips many batches across many segment rolls; stored bytes differ only in baseOffset and epoch', async () => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir, testConfig({ segmentBytes: 1000 }));
    const sent = await appendMany(log, 60);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(5);
    const all = await readAll(log);
    const headers = batchHeaders(all);
    expect(headers).toHaveLength(60);
    headers.forEach((h, i) => {
      expect(h.baseOffset).toBe(i * 3);
      expect(h.partitionLeaderEpoch).toBe(4);
      const stored = all.subarray(
        headers.slice(0, i).reduce((s, x) => s + x.sizeBytes, 0),
        headers.slice(0, i + 1).reduce((s, x) => s + x.sizeBytes, 0),
      );
      expect(stored.subarray(17).equals(sent[i].subarray(17))).toBe(true); // from the CRC on: untouched
      expect(batchCrcIsValid(stored)).toBe(true);
    });
    const files = await listPartitionFiles(dataDir);
    expect(files.filter((f) => f.endsWith('.log'))).toHaveLength(log.segmentBaseOffsets().length);
    expect(files).toContain('00000000000000000000.log');
    // every rolled segment got its index files and a producer snapshot at its successor's base
    for (const base of log.segmentBaseOffsets().slice(1))
      expect(files).toContain(`${String(base).padStart(20, '0')}.snapshot`);
  });

  it('reads at every offset: the batch holding it comes first', async () => {
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 700, indexIntervalBytes: 100 }));
    await appendMany(log, 40, 4);
    for (let offset = 0; offset < log.logEndOffset; offset++) {
      const { batches, nextOffset } = await log.read(offset, 1);
      const [h] = batchHeaders(batches);
      expect(h.baseOffset).toBe(offset - (offset % 4));
      expect(nextOffset).toBe(h.baseOffset + 4);
    }
  });

  it('returns at least one whole batch even when it is bigger than maxBytes, and whole batches up to maxBytes', async () => {
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 100_000 }));
    await appendMany(log, 10, 3, 100);
    const size = batchHeaders((await log.read(0, 1)).batches)[0].sizeBytes;
    expect((await log.read(0, 0)).batches.length).toBe(size);
    expect(batchHeaders((await log.read(0, size * 3)).batches)).toHaveLength(3);
    expect(batchHeaders((await log.read(0, size * 3 - 1)).batches)).toHaveLength(2);
    expect(batchHeaders((await log.read(0, 10 * size)).batches)).toHaveLength(10);
  });

  it('stops before any batch starting at or above maxOffset', async () => {
    log = await openLog(await dirs.make());
    await appendMany(log, 5, 2); // offsets 0..9, batches at 0,2,4,6,8
    expect(offsetsIn((await log.read(0, 1 << 20, { maxOffset: 5 })).batches)).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await log.read(0, 1 << 20, { maxOffset: 4 })).nextOffset).toBe(4);
    const bounded = await log.read(4, 1 << 20, { maxOffset: 4 });
    expect(bounded.batches.length).toBe(0);
    expect(bounded.nextOffset).toBe(4);
    expect((await log.read(0, 1 << 20, { maxOffset: 0 })).batches.length).toBe(0);
  });

  it('reading at the log end is empty; past it or below the start is OFFSET_OUT_OF_RANGE', async () => {
    log = await openLog(await dirs.make());
    await appendMany(log, 2, 2);
    await expect(log.read(4, 100)).resolves.toMatchObject({ nextOffset: 4, logStartOffset: 0 });
    expect((await log.read(4, 100)).batches.length).toBe(0);
    await expect(log.read(5, 100)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    await expect(log.read(-1, 100)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
  });

  it('survives a clean close and reopen with every offset readable and appends continuing', async () => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir, testConfig({ segmentBytes: 800 }));
    await appendMany(log, 30);
    const before = await readAll(log);
    const bases = log.segmentBaseOffsets();
    await log.close();
    log = await openLog(dataDir, testConfig({ segmentBytes: 800 }));
    expect(log.segmentBaseOffsets()).toEqual(bases);
    expect(log.logEndOffset).toBe(90);
    expect((await readAll(log)).equals(before)).toBe(true);
    await expect(log.append(buildBatch(), { leaderEpoch: 0 })).resolves.toMatchObject({ baseOffset: 90 });
  });

  it('rolls by size: no segment exceeds segmentBytes unless it holds a single batch', async () => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir, testConfig({ segmentBytes: 500 }));
    const big = buildBatch({ records: 1, valueBytes: 900 });
    await appendMany(log, 10);
    await log.append(big, { leaderEpoch: 0 });
    await appendMany(log, 5);
    await log.close();
    log = undefined;
    const files = (await listPartitionFiles(dataDir)).filter((f) => f.endsWith('.log'));
    for (const f of files) {
      const { size } = await fs.stat(`${dataDir}/orders-0/${f}`);
      if (size > 500) expect(size).toBe(big.length);
    }
  });

  it('rolls by age of the first batch on a manual clock', async () => {
    const clock = new ManualClock();
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 1 << 20, segmentMs: 60_000 }), clock);
    await log.append(buildBatch(), { leaderEpoch: 0 });
    clock.advance(59_999);
    await log.append(buildBatch(), { leaderEpoch: 0 });
    clock.advance(1);
    await log.append(buildBatch(), { leaderEpoch: 0 });
    expect(log.segmentBaseOffsets()).toEqual([0]);
    clock.advance(1);
    await log.append(buildBatch(), { leaderEpoch: 0 });
    expect(log.segmentBaseOffsets()).toEqual([0, 3]);
    expect(offsetsIn(await readAll(log))).toEqual([0, 1, 2, 3]);
  });

  it('LogAppendTime stamps the broker time into base and max timestamp, sets the attribute bit and rewrites the CRC', async () => {
    const clock = new ManualClock(1_800_000_000_000);
    log = await openLog(await dirs.make(), testConfig({ timestampType: 'LogAppendTime' }), clock);
    const result = await log.append(buildBatch({ records: 3, timestampMs: 5 }), { leaderEpoch: 0 });
    expect(result.logAppendTimeMs).toBe(1_800_000_000_000);
    const { batches } = await log.read(0, 1000);
    const h = readBatchHeader(batches);
    expect(h.maxTimestamp).toBe(1_800_000_000_000);
    expect(h.baseTimestamp).toBe(1_800_000_000_000);
    expect(h.attributes & TIMESTAMP_TYPE_BIT).toBe(TIMESTAMP_TYPE_BIT);
    expect(batchCrcIsValid(batches)).toBe(true);
    await expect(log.offsetForTimestamp(1_800_000_000_000)).resolves.toEqual({
      offset: 0,
      timestampMs: 1_800_000_000_000,
    });
  });

  it('several batches in one request are appended whole, offsets in order, even across a roll', async () => {
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 300 }));
    const request = Buffer.concat(
      Array.from({ length: 8 }, () => buildBatch({ records: 2, valueBytes: 30 })),
    );
    const result = await log.append(request, { leaderEpoch: 0 });
    expect(result).toMatchObject({ baseOffset: 0, lastOffset: 15 });
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(1);
    expect(offsetsIn(await readAll(log))).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });

  it('never shows bytes that are not written yet: LEO runs ahead, reads stop at the written end', async () => {
    log = await openLog(await dirs.make());
    const pending = log.append(buildBatch({ records: 2 }), { leaderEpoch: 0 });
    expect(log.logEndOffset).toBe(2);
    expect(log.writtenOffset).toBe(0);
    const early = await log.read(0, 1000);
    expect(early.batches.length).toBe(0);
    await pending;
    expect(offsetsIn((await log.read(0, 1000)).batches)).toEqual([0, 1]);
  });
});

describe('offsetForTimestamp', () => {
  it.each([
    { ts: 0, expected: { offset: 0, timestampMs: BASE_TIMESTAMP_MS + 20 } },
    { ts: BASE_TIMESTAMP_MS, expected: { offset: 0, timestampMs: BASE_TIMESTAMP_MS + 20 } },
    { ts: BASE_TIMESTAMP_MS + 1, expected: { offset: 1, timestampMs: BASE_TIMESTAMP_MS + 20 } },
    { ts: BASE_TIMESTAMP_MS + 20, expected: { offset: 2, timestampMs: BASE_TIMESTAMP_MS + 20 } },
    { ts: BASE_TIMESTAMP_MS + 21, expected: { offset: 3, timestampMs: BASE_TIMESTAMP_MS + 1020 } },
    { ts: BASE_TIMESTAMP_MS + 1015, expected: { offset: 5, timestampMs: BASE_TIMESTAMP_MS + 1020 } },
    {
      ts: BASE_TIMESTAMP_MS + 99 * 1000 + 20,
      expected: { offset: 99 * 3 + 2, timestampMs: BASE_TIMESTAMP_MS + 99 * 1000 + 20 },
    },
    { ts: BASE_TIMESTAMP_MS + 99 * 1000 + 21, expected: undefined },
  ])('record-exact in uncompressed batches: ts $ts', async ({ ts, expected }) => {
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 1500, indexIntervalBytes: 200 }));
    // batch i: records at base+i*1000 + 0, +10, +20
    for (let i = 0; i < 100; i++) {
      const t = BASE_TIMESTAMP_MS + i * 1000;
      await log.append(
        buildBatch({
          records: [
            { value: 'a', timestampMs: t },
            { value: 'b', timestampMs: t + 10 },
            { value: 'c', timestampMs: t + 20 },
          ],
          timestampMs: t,
        }),
        { leaderEpoch: 0 },
      );
    }
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(5);
    await expect(log.offsetForTimestamp(ts)).resolves.toEqual(expected);
    // and the same after a reopen, from the index files
    await log.close();
    log = await openLog(
      log.dir.replace(/\/orders-0$/, ''),
      testConfig({ segmentBytes: 1500, indexIntervalBytes: 200 }),
    );
    await expect(log.offsetForTimestamp(ts)).resolves.toEqual(expected);
  });

  it('batch precision for compressed batches: the batch base offset', async () => {
    log = await openLog(await dirs.make());
    await log.append(buildBatch({ records: 1 }), { leaderEpoch: 0 });
    const t = BASE_TIMESTAMP_MS + 1000;
    // a snappy batch: the index has only the batch's max timestamp, reads never decompress
    await log.append(
      snappyCompressed(
        buildBatch({
          records: [
            { value: 'a', timestampMs: t },
            { value: 'b', timestampMs: t + 10 },
          ],
          timestampMs: t,
        }),
      ),
      { leaderEpoch: 0 },
    );
    await expect(log.offsetForTimestamp(t + 5)).resolves.toEqual({ offset: 1, timestampMs: t + 10 });
  });

  it('non-monotonic timestamps: the first batch whose max reaches the time', async () => {
    log = await openLog(await dirs.make(), testConfig({ indexIntervalBytes: 0 }));
    for (const t of [100, 500, 200, 900, 300])
      await log.append(buildBatch({ timestampMs: t }), { leaderEpoch: 0 });
    await expect(log.offsetForTimestamp(250)).resolves.toEqual({ offset: 1, timestampMs: 500 });
    await expect(log.offsetForTimestamp(600)).resolves.toEqual({ offset: 3, timestampMs: 900 });
    await expect(log.offsetForTimestamp(901)).resolves.toBeUndefined();
  });

  it('an empty log has no offset for any time', async () => {
    log = await openLog(await dirs.make());
    await expect(log.offsetForTimestamp(0)).resolves.toBeUndefined();
  });
});

/** The batch with its records section snappy-compressed (codec bits 2), length and CRC fixed. */
function snappyCompressed(batch: Buffer): Buffer {
  const out = Buffer.concat([
    batch.subarray(0, OFFSET_RECORDS),
    compressSync(batch.subarray(OFFSET_RECORDS)),
  ]);
  out.writeInt32BE(out.length - 12, 8); // batchLength
  out.writeInt16BE((out.readInt16BE(21) & ~7) | 2, 21);
  writeBatchCrc(out);
  return out;
}
