/**
 * One batch through the cleaner's filter: which records stay, what the rewritten batch keeps from
 * the original (offsets, deltas, producer fields, codec), delete horizons, and the batch headers
 * that survive empty.
 */
import {
  DELETE_HORIZON_BIT,
  emptyBatch,
  filterBatch,
  type FilterContext,
} from '../../../services/broker/log/cleaner/batch-filter';
import { OffsetMap } from '../../../services/broker/log/cleaner/offset-map';
import { decodeBatch, encodeBatch, type RecordInput } from '../../../services/common/records';
import {
  CompressionCodec,
  batchCrcIsValid,
  readBatchHeader,
  patchBaseOffset,
  patchPartitionLeaderEpoch,
} from '../../../services/common/records/layout';

const NOW = 1_700_000_100_000;
const T = 1_700_000_000_000;

function batch(
  records: Array<[string | null, string | null, number?]>,
  options: {
    baseOffset?: number;
    compression?: CompressionCodec;
    producerId?: number;
    logAppendTime?: boolean;
  } = {},
): Buffer {
  const inputs: RecordInput[] = records.map(([k, v, ts]) => ({
    key: k === null ? null : Buffer.from(k),
    value: v === null ? null : Buffer.from(v),
    timestampMs: ts ?? T,
  }));
  const b = encodeBatch(inputs, {
    compression: options.compression,
    producerId: options.producerId,
    producerEpoch: options.producerId === undefined ? undefined : 3,
    baseSequence: options.producerId === undefined ? undefined : 40,
    timestampType: options.logAppendTime ? 'LogAppendTime' : undefined,
    nowMs: options.logAppendTime ? T + 5 : undefined,
  });
  patchBaseOffset(b, 0, options.baseOffset ?? 100);
  patchPartitionLeaderEpoch(b, 0, 7);
  return b;
}

function ctx(latest: Record<string, number> = {}, producers: Array<[number, number]> = []): FilterContext {
  const map = new OffsetMap(64 * 1024);
  for (const [k, offset] of Object.entries(latest)) map.put(Buffer.from(k), 0, Buffer.byteLength(k), offset);
  return { map, nowMs: NOW, deleteRetentionMs: 1000, producerLastOffsets: new Map(producers) };
}

function records(b: Buffer): Array<[number, string | null, string | null, number]> {
  return decodeBatch(b).records.map((r) => [
    r.offset,
    r.key?.toString() ?? null,
    r.value?.toString() ?? null,
    r.timestampMs,
  ]);
}

describe('filterBatch', () => {
  it('keeps a batch whose records are all the latest of their keys, bytes untouched', () => {
    const b = batch([
      ['a', '1'],
      ['b', '2'],
    ]);
    const out = filterBatch(b, ctx({ a: 100, b: 101 }), false);
    expect(out).toMatchObject({ kind: 'keep', recordsIn: 2, recordsKept: 2 });
  });

  it('keeps records of keys the map has not seen (they are not overwritten in the dirty part)', () => {
    expect(filterBatch(batch([['a', '1']]), ctx(), false).kind).toBe('keep');
  });

  it('drops a batch whose every record is overwritten later', () => {
    const out = filterBatch(
      batch([
        ['a', '1'],
        ['b', '2'],
      ]),
      ctx({ a: 500, b: 501 }),
      false,
    );
    expect(out).toMatchObject({ kind: 'drop', recordsKept: 0 });
  });

  it('rewrites a partly overwritten batch: same base offset, deltas, epoch, producer fields; new count and CRC', () => {
    const b = batch(
      [
        ['a', '1', T + 1],
        ['b', '2', T + 9],
        ['c', '3', T + 4],
      ],
      { producerId: 12 },
    );
    const out = filterBatch(b, ctx({ a: 100, b: 900, c: 102 }), false);
    expect(out.kind).toBe('rewrite');
    const bytes = out.bytes!;
    expect(batchCrcIsValid(bytes)).toBe(true);
    const before = readBatchHeader(b);
    const after = readBatchHeader(bytes);
    expect(after).toMatchObject({
      baseOffset: 100,
      lastOffsetDelta: before.lastOffsetDelta,
      partitionLeaderEpoch: 7,
      producerId: 12,
      producerEpoch: 3,
      baseSequence: 40,
      recordCount: 2,
      baseTimestamp: before.baseTimestamp,
      maxTimestamp: T + 4,
      attributes: before.attributes,
    });
    expect(records(bytes)).toEqual([
      [100, 'a', '1', T + 1],
      [102, 'c', '3', T + 4],
    ]);
    expect(out.maxTimestamp).toBe(T + 4);
  });

  it.each([CompressionCodec.Gzip, CompressionCodec.Snappy])(
    'recompresses with the batch codec (%s)',
    (codec) => {
      const b = batch(
        [
          ['a', 'x'.repeat(200)],
          ['b', 'y'.repeat(200)],
        ],
        { compression: codec },
      );
      const out = filterBatch(b, ctx({ a: 900 }), false);
      expect(out.kind).toBe('rewrite');
      expect(readBatchHeader(out.bytes!).attributes & 0x07).toBe(codec);
      expect(records(out.bytes!)).toEqual([[101, 'b', 'y'.repeat(200), T]]);
    },
  );

  it('drops records without a key (left from before the topic was compacted)', () => {
    const out = filterBatch(
      batch([
        [null, 'x'],
        ['a', '1'],
      ]),
      ctx(),
      false,
    );
    expect(out).toMatchObject({ kind: 'rewrite', keylessDropped: 1, recordsKept: 1 });
    expect(records(out.bytes!)).toEqual([[101, 'a', '1', T]]);
  });

  describe('tombstones and the delete horizon', () => {
    it('sets the horizon (bit 6, baseTimestamp = now + delete.retention.ms) the first time it keeps a tombstone; timestamps stay exact', () => {
      const b = batch([
        ['a', '1', T + 3],
        ['gone', null, T + 7],
      ]);
      const out = filterBatch(b, ctx(), false);
      expect(out.kind).toBe('rewrite');
      const h = readBatchHeader(out.bytes!);
      expect(h.attributes & DELETE_HORIZON_BIT).toBe(DELETE_HORIZON_BIT);
      expect(h.baseTimestamp).toBe(NOW + 1000);
      expect(h.maxTimestamp).toBe(T + 7);
      expect(out.tombstoneHorizonMs).toBe(NOW + 1000);
      expect(records(out.bytes!)).toEqual([
        [100, 'a', '1', T + 3],
        [101, 'gone', null, T + 7],
      ]);
    });

    it('keeps a batch with a horizon as it is until the horizon, then drops its tombstones', () => {
      const first = filterBatch(
        batch([
          ['a', '1'],
          ['gone', null],
        ]),
        ctx(),
        false,
      ).bytes!;
      const before = filterBatch(first, { ...ctx(), nowMs: NOW + 999 }, false);
      expect(before).toMatchObject({ kind: 'keep', tombstoneHorizonMs: NOW + 1000 });
      const after = filterBatch(first, { ...ctx(), nowMs: NOW + 1000 }, false);
      expect(after).toMatchObject({ kind: 'rewrite', tombstonesDropped: 1, tombstoneHorizonMs: -1 });
      expect(records(after.bytes!)).toEqual([[100, 'a', '1', T]]);
    });

    it('drops a tombstone overwritten later whatever its horizon', () => {
      const out = filterBatch(batch([['gone', null]]), ctx({ gone: 200 }), false);
      expect(out.kind).toBe('drop');
    });
  });

  describe('headers that survive empty', () => {
    it('keeps the last batch of a producer still in the producer state, as an empty header', () => {
      const b = batch(
        [
          ['a', '1'],
          ['b', '2'],
        ],
        { producerId: 12, compression: CompressionCodec.Gzip },
      );
      const out = filterBatch(b, ctx({ a: 900, b: 901 }, [[12, 101]]), false);
      expect(out.kind).toBe('rewrite');
      const h = readBatchHeader(out.bytes!);
      expect(out.bytes!.length).toBe(61);
      expect(h).toMatchObject({
        baseOffset: 100,
        lastOffsetDelta: 1,
        recordCount: 0,
        producerId: 12,
        producerEpoch: 3,
        baseSequence: 40,
      });
      expect(h.attributes & 0x07).toBe(0); // nothing to decompress
      expect(batchCrcIsValid(out.bytes!)).toBe(true);
      expect(decodeBatch(out.bytes!).records).toEqual([]);
    });

    it('drops an older batch of that producer', () => {
      const out = filterBatch(batch([['a', '1']], { producerId: 12 }), ctx({ a: 900 }, [[12, 5000]]), false);
      expect(out.kind).toBe('drop');
    });

    it('keeps an empty header when asked (the last batch of a cleaned segment), and keeps it as is later', () => {
      const out = filterBatch(batch([['a', '1']]), ctx({ a: 900 }), true);
      expect(out.kind).toBe('rewrite');
      expect(filterBatch(out.bytes!, ctx({ a: 900 }), true).kind).toBe('keep');
      expect(filterBatch(out.bytes!, ctx({ a: 900 }), false).kind).toBe('drop');
      expect(emptyBatch(batch([['a', '1']]))).toEqual(out.bytes);
    });
  });

  it('keeps LogAppendTime batches stamped with their append time', () => {
    const b = batch(
      [
        ['a', '1'],
        ['b', '2'],
      ],
      { logAppendTime: true },
    );
    const out = filterBatch(b, ctx({ a: 900 }), false);
    expect(readBatchHeader(out.bytes!).maxTimestamp).toBe(T + 5);
    expect(records(out.bytes!)).toEqual([[101, 'b', '2', T + 5]]);
  });
});
