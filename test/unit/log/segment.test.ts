/**
 * LogSegment and the segment reader on their own: index bookkeeping per indexIntervalBytes (and
 * that a rebuild by scanning gives byte-identical indexes, which recovery relies on), reads by
 * offset / maxBytes / maxOffset, truncation, and finalize's files.
 */
import { promises as fs } from 'node:fs';
import { OffsetIndex } from '../../../services/broker/log/offset-index';
import { findByTimestamp, readSegment } from '../../../services/broker/log/reader';
import { LogSegment } from '../../../services/broker/log/segment';
import { TimeIndex } from '../../../services/broker/log/time-index';
import { batchHeaders, buildBatch } from './batches';
import { TempDirs } from './helpers';

const dirs = new TempDirs();
const segments: LogSegment[] = [];
afterEach(async () => {
  await Promise.all(segments.splice(0).map((s) => s.close()));
  await dirs.cleanup();
});

const BASE = 1000;
/** Batch i: 1 + (i % 4) records, values of 10 + 7*i bytes, timestamps going up and down. */
const specs = Array.from({ length: 30 }, (_, i) => ({
  records: 1 + (i % 4),
  valueBytes: 10 + 7 * i,
  timestampMs: 5000 + ((i * 37) % 11) * 100,
}));

async function filledSegment(indexIntervalBytes: number): Promise<{ segment: LogSegment; starts: number[] }> {
  const segment = new LogSegment(await dirs.make(), BASE, indexIntervalBytes);
  segments.push(segment);
  await segment.createFile();
  let offset = BASE;
  const starts: number[] = [];
  for (const spec of specs) {
    const batch = buildBatch({ ...spec, baseOffset: offset });
    const position = segment.sizeBytes;
    await segment.file.write(batch, 0, batch.length, position);
    const h = batchHeaders(batch)[0];
    segment.onBatchWritten({
      baseOffset: offset,
      lastOffset: offset + h.lastOffsetDelta,
      maxTimestamp: h.maxTimestamp,
      position,
      sizeBytes: batch.length,
    });
    starts.push(offset);
    offset += h.lastOffsetDelta + 1;
  }
  return { segment, starts };
}

describe('LogSegment indexes', () => {
  it.each([0, 64, 500, 2000, 1e9])(
    'indexIntervalBytes %d: entries spaced by the interval, rebuild gives identical bytes',
    async (interval) => {
      const { segment, starts } = await filledSegment(interval);
      const entries = Array.from({ length: segment.offsetIndex.entryCount }, (_, i) =>
        segment.offsetIndex.entry(i),
      );
      let previous = 0;
      for (const e of entries) {
        expect(e.position - previous).toBeGreaterThanOrEqual(interval);
        expect(starts).toContain(e.offset);
        previous = e.position;
      }
      if (interval === 0) expect(entries).toHaveLength(starts.length - 1);
      if (interval === 1e9) expect(entries).toHaveLength(0);
      expect(segment.maxTimestampMs).toBe(Math.max(...specs.map((s) => s.timestampMs)));

      const live = {
        offsets: Buffer.from(segment.offsetIndex.toBytes()),
        times: Buffer.from(segment.timeIndex.toBytes()),
        size: segment.sizeBytes,
        next: segment.nextOffset,
      };
      const result = await segment.rebuild(segment.sizeBytes, { verifyCrc: true, contiguous: true });
      expect(result.invalid).toBeUndefined();
      expect(segment.offsetIndex.toBytes().equals(live.offsets)).toBe(true);
      expect(segment.timeIndex.toBytes().equals(live.times)).toBe(true);
      expect([segment.sizeBytes, segment.nextOffset]).toEqual([live.size, live.next]);
    },
  );

  it('finalize adds the max-timestamp entry and writes index files that load back equal', async () => {
    const { segment } = await filledSegment(300);
    await segment.finalize();
    expect(segment.timeIndex.lastEntry()?.timestampMs).toBe(segment.maxTimestampMs);
    const offsetBytes = await fs.readFile(segment.indexFile);
    const timeBytes = await fs.readFile(segment.timeIndexFile);
    expect(
      (OffsetIndex.fromBytes(BASE, offsetBytes, segment.sizeBytes) as OffsetIndex)
        .toBytes()
        .equals(segment.offsetIndex.toBytes()),
    ).toBe(true);
    expect(
      (TimeIndex.fromBytes(BASE, timeBytes) as TimeIndex).toBytes().equals(segment.timeIndex.toBytes()),
    ).toBe(true);
  });
});

describe('readSegment', () => {
  // starts[i] is the base offset of batch i; batch 2 has 3 records, batch 4 has 1.
  it.each([
    {
      name: 'first offset, 1 byte',
      offset: (s: number[]) => s[0],
      maxBytes: 1,
      maxOffset: () => Infinity,
      count: 1,
      first: 0,
    },
    {
      name: 'inside the 3rd batch',
      offset: (s: number[]) => s[2] + 2,
      maxBytes: 1,
      maxOffset: () => Infinity,
      count: 1,
      first: 2,
    },
    {
      name: 'everything',
      offset: (s: number[]) => s[0],
      maxBytes: 1 << 20,
      maxOffset: () => Infinity,
      count: 30,
      first: 0,
    },
    {
      name: 'bounded by maxOffset at the 5th batch',
      offset: (s: number[]) => s[0],
      maxBytes: 1 << 20,
      maxOffset: (s: number[]) => s[4],
      count: 4,
      first: 0,
    },
    {
      name: 'maxOffset inside the 4th batch keeps it',
      offset: (s: number[]) => s[0],
      maxBytes: 1 << 20,
      maxOffset: (s: number[]) => s[3] + 1,
      count: 4,
      first: 0,
    },
    {
      name: 'maxOffset at the batch itself',
      offset: (s: number[]) => s[4],
      maxBytes: 1 << 20,
      maxOffset: (s: number[]) => s[4],
      count: 0,
      first: 0,
    },
    {
      name: 'last batch',
      offset: (s: number[]) => s[29],
      maxBytes: 1,
      maxOffset: () => Infinity,
      count: 1,
      first: 29,
    },
  ])('$name', async ({ offset, maxBytes, maxOffset, count, first }) => {
    const { segment, starts } = await filledSegment(128);
    const result = await readSegment(segment, offset(starts), maxBytes, maxOffset(starts));
    expect(result).toBeDefined();
    const headers = batchHeaders(result!.batches);
    expect(headers).toHaveLength(count);
    if (count > 0) expect(headers[0].baseOffset).toBe(starts[first]);
  });

  it('is undefined past the segment end', async () => {
    const { segment } = await filledSegment(128);
    expect(await readSegment(segment, segment.nextOffset, 100, Infinity)).toBeUndefined();
  });

  it('findByTimestamp: first batch whose max timestamp reaches the time, record-exact inside it', async () => {
    const { segment, starts } = await filledSegment(64);
    for (const ts of [0, 5000, 5001, 5550, 6000]) {
      const i = specs.findIndex((s) => s.timestampMs >= ts);
      const hit = await findByTimestamp(segment, ts, BASE);
      expect(hit).toEqual({ offset: starts[i], timestampMs: specs[i].timestampMs });
    }
    expect(await findByTimestamp(segment, 6001, BASE)).toBeUndefined();
  });
});

describe('LogSegment.truncateTo', () => {
  it.each([
    { name: 'at a batch start', at: 10, keep: 10 },
    { name: 'inside a batch', at: 'inside:10', keep: 10 },
    { name: 'at the base', at: 0, keep: 0 },
    { name: 'past the end', at: 99, keep: 30 },
  ])('$name', async ({ at, keep }) => {
    const { segment, starts } = await filledSegment(128);
    const target =
      typeof at === 'number'
        ? at < starts.length
          ? starts[at]
          : segment.nextOffset + 5
        : starts[10] + (specs[10].records > 1 ? 1 : 0);
    const sizeOfKept = specs.slice(0, keep).reduce((sum, s) => sum + buildBatch(s).length, 0);
    const before = segment.sizeBytes;
    const nextBefore = segment.nextOffset;
    const removed = await segment.truncateTo(target);
    expect(removed).toBe(before - sizeOfKept);
    expect(segment.sizeBytes).toBe(sizeOfKept);
    expect((await fs.stat(segment.logFile)).size).toBe(sizeOfKept);
    expect(segment.nextOffset).toBe(keep < starts.length ? starts[keep] : nextBefore);
    expect(segment.maxTimestampMs).toBe(
      keep === 0 ? -1 : Math.max(...specs.slice(0, keep).map((s) => s.timestampMs)),
    );
    const live = Buffer.from(segment.offsetIndex.toBytes());
    await segment.rebuild(segment.sizeBytes, { verifyCrc: true, contiguous: true });
    expect(segment.offsetIndex.toBytes().equals(live)).toBe(true);
  });
});
