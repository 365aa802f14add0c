/**
 * Poison batches (issue #12): batches whose header and CRC are fine but whose records consumers
 * cannot read were acknowledged, and every later fetch from offset 0 failed. The broker now
 * decompresses and checks every record of every batch before appending (validateBatches), within
 * a decompression bound, so a compression bomb cannot take its memory either.
 */
import { gzipSync } from 'zlib';
import { compressSync } from 'snappy';
import { validateBatches, decompressedLimitBytes } from '../../../services/broker/log/validate';
import {
  CompressionCodec,
  encodeBatch,
  writeBatchCrc,
  OFFSET_RECORDS,
} from '../../../services/common/records';

const MAX = 64 * 1024 * 1024;
const ts = 1_700_000_000_000;

function oneRecord(): Buffer {
  return encodeBatch([{ key: Buffer.from('k'), value: Buffer.from('v'), timestampMs: ts }]);
}

/** The batch with its records section replaced (and the codec bits set), CRC recomputed. */
function withRecords(batch: Buffer, codec: CompressionCodec, records: Buffer): Buffer {
  const out = Buffer.concat([batch.subarray(0, OFFSET_RECORDS), records]);
  out.writeInt32BE(out.length - 12, 8); // batchLength
  out.writeInt16BE((out.readInt16BE(21) & ~7) | codec, 21);
  writeBatchCrc(out);
  return out;
}

function spoiled(spoil: (b: Buffer) => void): Buffer {
  const batch = oneRecord();
  spoil(batch);
  writeBatchCrc(batch);
  return batch;
}

function code(request: Buffer): string | undefined {
  try {
    validateBatches(request, MAX);
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
}

test.each([
  [
    'recordCount and lastOffsetDelta agree on 1,000,000, one record present',
    () =>
      spoiled((b) => {
        b.writeInt32BE(999_999, 23);
        b.writeInt32BE(1_000_000, 57);
      }),
  ],
  ['flagged gzip, records not gzip', () => spoiled((b) => b.writeInt16BE(b.readInt16BE(21) | 1, 21))],
  ['a key length past the end of its record', () => spoiled((b) => (b[65] = 120))],
  [
    'a record count of 2 with one record',
    () =>
      spoiled((b) => {
        b.writeInt32BE(1, 23);
        b.writeInt32BE(2, 57);
      }),
  ],
  ['flagged lz4, records not lz4', () => spoiled((b) => b.writeInt16BE(b.readInt16BE(21) | 3, 21))],
])('%s is INVALID_RECORD', (_what, make) => {
  expect(code(make())).toBe('INVALID_RECORD');
  // ...also behind a good batch in the same request: nothing of it is taken.
  expect(code(Buffer.concat([oneRecord(), make()]))).toBe('INVALID_RECORD');
});

test('well-formed plain, gzip and snappy batches pass', () => {
  const plain = oneRecord();
  const records = plain.subarray(OFFSET_RECORDS);
  expect(code(plain)).toBeUndefined();
  expect(code(withRecords(plain, CompressionCodec.Gzip, gzipSync(records)))).toBeUndefined();
  expect(code(withRecords(plain, CompressionCodec.Snappy, compressSync(records)))).toBeUndefined();
});

test('a compression bomb is INVALID_RECORD, not a broker out of memory', () => {
  const plain = oneRecord();
  const zeros = Buffer.alloc(decompressedLimitBytes(0) + 1024);
  const gzipBomb = withRecords(plain, CompressionCodec.Gzip, gzipSync(zeros));
  expect(gzipBomb.length).toBeLessThan(1024 * 1024);
  expect(code(gzipBomb)).toBe('INVALID_RECORD');
  // A raw snappy block that declares 4 GiB of output (its leading varint) and holds nothing.
  const snappyBomb = withRecords(plain, CompressionCodec.Snappy, Buffer.from([0x80, 0x80, 0x80, 0x80, 0x10]));
  expect(code(snappyBomb)).toBe('INVALID_RECORD');
});
