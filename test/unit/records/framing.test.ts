/**
 * The one RecordBatch framing check (services/common/records/framing.ts) that the produce
 * validator, the follower append, the segment scanner, the readers and the codec share.
 */
import {
  OFFSET_BATCH_LENGTH,
  OFFSET_LAST_OFFSET_DELTA,
  OFFSET_MAGIC,
  OFFSET_RECORD_COUNT,
  batchContentFault,
  batchFramingFault,
  batchSizeFault,
  describeFramingFault,
  encodeBatch,
  writeBatchCrc,
  type FramingChecks,
} from '../../../services/common/records';

const batch = (): Buffer =>
  encodeBatch([1, 2, 3].map((i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) })));
const ALL: FramingChecks = { crc: true, offsets: 'dense' };

function patched(edit: (b: Buffer) => void, fixCrc = true): Buffer {
  const b = batch();
  edit(b);
  if (fixCrc) writeBatchCrc(b);
  return b;
}

describe('batch framing', () => {
  test('a good batch passes every check and gives its size', () => {
    const b = batch();
    expect(batchFramingFault(b, 0, ALL)).toBe(b.length);
    expect(batchFramingFault(b, 0, { crc: true, offsets: 'sparse', maxBytes: b.length })).toBe(b.length);
  });

  test.each<[string, () => Buffer, string, string]>([
    ['fewer than 12 bytes', () => batch().subarray(0, 11), 'short', 'INVALID_RECORD'],
    [
      'a length below the header',
      () => patched((b) => b.writeInt32BE(40, OFFSET_BATCH_LENGTH)),
      'undersized',
      'INVALID_RECORD',
    ],
    ['a length past the end', () => batch().subarray(0, 70), 'overrun', 'INVALID_RECORD'],
    ['magic 1', () => patched((b) => b.writeInt8(1, OFFSET_MAGIC)), 'magic', 'INVALID_RECORD'],
    ['a flipped byte', () => patched((b) => (b[b.length - 1] ^= 1), false), 'crc', 'CORRUPT_MESSAGE'],
    [
      'a negative lastOffsetDelta',
      () => patched((b) => b.writeInt32BE(-1, OFFSET_LAST_OFFSET_DELTA)),
      'last-offset-delta',
      'INVALID_RECORD',
    ],
    [
      'a record count off the offsets',
      () => patched((b) => b.writeInt32BE(2, OFFSET_RECORD_COUNT)),
      'record-count',
      'INVALID_RECORD',
    ],
  ])('%s is refused', (_name, input, kind, code) => {
    const fault = batchFramingFault(input(), 0, ALL);
    expect(fault).toMatchObject({ kind, code });
    if (typeof fault !== 'number') expect(describeFramingFault(fault, 'batch at byte 0')).toContain('batch');
  });

  test('max bytes is MESSAGE_TOO_LARGE, checked after the length', () => {
    const b = batch();
    expect(batchFramingFault(b, 0, { ...ALL, maxBytes: b.length - 1 })).toMatchObject({
      kind: 'too-large',
      code: 'MESSAGE_TOO_LARGE',
    });
    expect(batchSizeFault(b.subarray(0, 70), 0, 70, 10)).toMatchObject({ kind: 'overrun' });
  });

  test('sparse offsets allow fewer records than offsets, dense do not', () => {
    const thinned = patched((b) => b.writeInt32BE(1, OFFSET_RECORD_COUNT));
    expect(batchContentFault(thinned, 0, thinned.length, { crc: true, offsets: 'sparse' })).toBeUndefined();
    expect(batchContentFault(thinned, 0, thinned.length, ALL)).toMatchObject({ kind: 'record-count' });
  });

  test('the CRC comes before the offsets, and is skipped when not asked for', () => {
    const damaged = patched((b) => b.writeInt32BE(-1, OFFSET_LAST_OFFSET_DELTA), false);
    expect(batchContentFault(damaged, 0, damaged.length, ALL)).toMatchObject({ kind: 'crc' });
    expect(batchContentFault(damaged, 0, damaged.length, { crc: false, offsets: 'sparse' })).toMatchObject({
      kind: 'last-offset-delta',
    });
    expect(
      batchContentFault(damaged, 0, damaged.length, { crc: false, offsets: 'unchecked' }),
    ).toBeUndefined();
  });

  test('a batch inside a larger buffer is checked where it is', () => {
    const b = batch();
    const two = Buffer.concat([b, b]);
    expect(batchFramingFault(two, b.length, ALL)).toBe(b.length);
    expect(batchFramingFault(two, 0, ALL, b.length + 20)).toBe(b.length);
  });
});
