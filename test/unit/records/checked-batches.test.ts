import {
  CompressionCodec,
  OFFSET_RECORDS,
  checkBatches,
  decodeRecords,
  encodeBatch,
  patchBaseOffset,
  readBatchHeader,
  writeBatchCrc,
  type RecordInput,
} from '../../../services/common/records';
import { OffsetMap } from '../../../services/broker/log/cleaner/offset-map';
import { filterBatch } from '../../../services/broker/log/cleaner/batch-filter';

const NOW_MS = 1_700_000_000_000;

function batchAt(baseOffset: number, records: RecordInput[], compression = CompressionCodec.None): Buffer {
  const b = encodeBatch(records, { nowMs: NOW_MS, compression });
  patchBaseOffset(b, 0, baseOffset);
  return b;
}

function values(from: number, count: number): RecordInput[] {
  return Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`v${from + i}`),
    headers: i % 2 ? [{ key: 'h', value: Buffer.from([i]) }] : [],
  }));
}

/** A batch of offsets 20..25 that kept only 21, 23, 25 (the cleaner dropped the keyless records). */
function compactedBatch(): Buffer {
  const records = values(20, 6).map((r, i) => (i % 2 ? r : { ...r, key: null }));
  const outcome = filterBatch(
    batchAt(20, records),
    { map: new OffsetMap(64 * 1024), nowMs: NOW_MS, deleteRetentionMs: 0, producerLastOffsets: new Map() },
    false,
  );
  expect(outcome.kind).toBe('rewrite');
  return outcome.bytes!;
}

describe('checkBatches', () => {
  const plain = batchAt(0, values(0, 10));
  const gzip = batchAt(10, values(10, 10), CompressionCodec.Gzip);
  const compacted = compactedBatch();
  const all = Buffer.concat([plain, gzip, compacted]);

  /** Every stored offset: 0..19, then what compaction left of 20..25. */
  const STORED = [...Array.from({ length: 20 }, (_, i) => i), 21, 23, 25];

  test.each([0, 3, 10, 15, 20, 22, 25, 26])(
    'from offset %d: counts exactly the records it will build, without building them',
    (from) => {
      const { checked, error } = checkBatches(all, from);
      expect(error).toBeUndefined();
      const expected = STORED.filter((o) => o >= from);
      expect(checked.count).toBe(expected.length);
      const built = checked.records();
      expect(built.map((r) => r.offset)).toEqual(expected);
      expect(built.map((r) => r.value!.toString())).toEqual(expected.map((o) => `v${o}`));
      expect(built.map((r) => r.headers.length)).toEqual(expected.map((o) => (o >= 20 ? 1 : o % 2)));
      expect(checked.records()).toBe(built); // built once
      expect(decodeRecords(all, from)).toEqual(built);
    },
  );

  test.each([0, 3, 10, 15, 20, 22, 25, 26])(
    'from offset %d: forEach visits the same records as records() builds, before and after building',
    (from) => {
      const visited = (checked: ReturnType<typeof checkBatches>['checked']) => {
        const out: unknown[] = [];
        checked.forEach((offset, timestampMs, key, value) => out.push({ offset, timestampMs, key, value }));
        return out;
      };
      const { checked } = checkBatches(all, from);
      const before = visited(checked); // without objects: headers are not read
      const built = checked
        .records()
        .map(({ offset, timestampMs, key, value }) => ({ offset, timestampMs, key, value }));
      expect(before).toEqual(built);
      expect(visited(checked)).toEqual(built); // from the built records
      expect(built.length).toBe(STORED.filter((o) => o >= from).length);
    },
  );

  test.each([
    [0, 1],
    [0, 4],
    [3, 7],
    [10, 10],
    [15, 3],
    [20, 2],
    [22, 5],
    [0, 1000],
    [26, 4],
  ])(
    'from offset %d in slices of %d: the records() records in order, no slice over the size, none empty',
    (from, size) => {
      const expected = checkBatches(all, from).checked.records();
      const lazily = [...checkBatches(all, from).checked.slices(size)];
      const { checked } = checkBatches(all, from);
      checked.records();
      const fromBuilt = [...checked.slices(size)];
      for (const slices of [lazily, fromBuilt]) {
        expect(slices.flat()).toEqual(expected);
        for (const s of slices) expect(s.length).toBeGreaterThan(0);
        // Only the last one is short: slices run across batch boundaries.
        expect(slices.slice(0, -1).every((s) => s.length === size)).toBe(true);
        expect(slices.length).toBe(Math.ceil(expected.length / size));
      }
    },
  );

  test('slices are built as the iteration reaches them, and a size below 1 is refused', () => {
    const { checked } = checkBatches(all, 0);
    const it = checked.slices(5)[Symbol.iterator]();
    const first = it.next().value!;
    expect(first.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
    // Not cached: records() still builds its own objects.
    expect(checked.records()[0]).not.toBe(first[0]);
    expect(checked.records()[0]).toEqual(first[0]);
    expect(() => [...checked.slices(0)]).toThrow(RangeError);
  });

  test('the bytes are the batches that hold the records, as stored', () => {
    expect(checkBatches(all, 12).checked.bytes.equals(Buffer.concat([gzip, compacted]))).toBe(true);
    expect(checkBatches(all, 26).checked).toMatchObject({ count: 0, endOffset: undefined });
    expect(checkBatches(all, 26).checked.bytes.length).toBe(0);
    expect(checkBatches(all, 0).checked.endOffset).toBe(26);
  });

  test('a record that overruns its batch is found at check time, under a valid CRC', () => {
    const bad = batchAt(10, values(10, 3));
    // The first record's length varint (zigzag 127 = 254) now claims more bytes than the batch has.
    bad.writeUInt16BE(0xfe01, OFFSET_RECORDS);
    writeBatchCrc(bad);
    const { checked, error, failedAt } = checkBatches(Buffer.concat([plain, bad]), 0);
    expect(error).toMatchObject({ code: 'INVALID_RECORD', context: { offset: 10 } });
    expect(error!.message).toMatch(/record 0: length 127 overruns the batch/);
    expect(failedAt).toBe(plain.length);
    expect(checked.count).toBe(10);
    expect(checked.records().map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('offset deltas out of order or past lastOffsetDelta are refused, under a valid CRC', () => {
    // Records 0 and 1 of a 2-record batch: swap their offset deltas (the byte after the timestamp delta).
    const swapped = batchAt(30, [
      { key: null, value: Buffer.from('a') },
      { key: null, value: Buffer.from('b') },
    ]);
    const firstDeltaAt = OFFSET_RECORDS + 3; // length, attributes, timestampDelta: one byte each
    expect(swapped[firstDeltaAt]).toBe(0);
    swapped[firstDeltaAt] = 2; // zigzag 1: the same delta as the next record
    writeBatchCrc(swapped);
    const { checked, error } = checkBatches(swapped, 0);
    expect(error).toMatchObject({ code: 'INVALID_RECORD', context: { offset: 30 } });
    expect(error!.message).toMatch(/record 1: offset delta 1 after 1 is out of order/);
    expect(checked.count).toBe(0);
  });

  test('a CRC mismatch stops the check at that batch; a bad header is named by its position', () => {
    const flipped = Buffer.from(gzip);
    flipped[flipped.length - 1] ^= 0x01;
    const crc = checkBatches(Buffer.concat([plain, flipped]), 0);
    expect(crc.error).toMatchObject({ code: 'CORRUPT_MESSAGE', retriable: true });
    expect(crc.failedAt).toBe(plain.length);

    const badMagic = Buffer.from(gzip);
    badMagic[16] = 1;
    const magic = checkBatches(Buffer.concat([plain, badMagic]), 0);
    expect(magic.error).toMatchObject({ code: 'INVALID_RECORD' });
    expect(magic.failedAt).toBe(plain.length);
    expect(readBatchHeader(Buffer.concat([plain, badMagic]), magic.failedAt!).baseOffset).toBe(10);
  });
});
