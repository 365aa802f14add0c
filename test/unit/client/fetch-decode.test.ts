import { encodeBatch, patchBaseOffset } from '../../../services/common/records';
import { checkFetched, nextFetchOffset, splitFetched } from '../../../client/consumer/fetch-decode';

function batchAt(baseOffset: number, count: number): Buffer {
  const b = encodeBatch(
    Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.from(`v${baseOffset + i}`) })),
  );
  patchBaseOffset(b, 0, baseOffset);
  return b;
}

describe('fetched bytes', () => {
  const a = batchAt(10, 3); // 10..12
  const b = batchAt(13, 4); // 13..16

  test('complete batches only: the end offset is after the last batch', () => {
    const f = splitFetched(Buffer.concat([a, b]));
    expect(f).toMatchObject({ completeEndOffset: 17, trailingBytes: 0, partialBaseOffset: undefined });
    expect(nextFetchOffset(f, 17, 11)).toEqual({ nextOffset: 17, truncated: false });
    expect(
      checkFetched(f.complete, 11, { topic: 't', partition: 0 })
        .checked.records()
        .map((r) => r.offset),
    ).toEqual([11, 12, 13, 14, 15, 16]);
  });

  test('a partial trailing batch is cut off and fetched again from its base offset', () => {
    const f = splitFetched(Buffer.concat([a, b.subarray(0, 20)]));
    expect(f).toMatchObject({ completeEndOffset: 13, trailingBytes: 20, partialBaseOffset: 13 });
    expect(f.complete.length).toBe(a.length);
    expect(nextFetchOffset(f, 13, 10)).toEqual({ nextOffset: 13, truncated: false });
    expect(nextFetchOffset(f, 17, 10)).toEqual({ nextOffset: 13, truncated: true });
  });

  test('fewer than 8 bytes of the cut batch: resume after the last complete one', () => {
    const f = splitFetched(Buffer.concat([a, b.subarray(0, 5)]));
    expect(f).toMatchObject({ completeEndOffset: 13, trailingBytes: 5, partialBaseOffset: undefined });
    expect(nextFetchOffset(f, 17, 10).nextOffset).toBe(13);
  });

  test('nothing complete: stay at the requested offset', () => {
    const f = splitFetched(b.subarray(0, 30));
    expect(f.complete.length).toBe(0);
    expect(nextFetchOffset(f, 17, 14)).toEqual({ nextOffset: 14, truncated: true });
  });

  test('a corrupt batch stops decoding there: earlier records, the error, and where to refetch', () => {
    const bad = Buffer.from(b);
    bad[bad.length - 1] ^= 0xff;
    const result = checkFetched(Buffer.concat([a, bad]), 11, { topic: 't', partition: 2 });
    expect(result.checked.count).toBe(2);
    expect(result.checked.records().map((r) => r.offset)).toEqual([11, 12]);
    expect(result.checked.bytes.equals(a)).toBe(true);
    expect(result.stopOffset).toBe(13);
    expect(result.error).toMatchObject({
      code: 'CORRUPT_MESSAGE',
      retriable: true,
      context: { topic: 't', partition: 2 },
    });
  });
});
