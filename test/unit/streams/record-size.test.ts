/**
 * The runtime's check of sink records against their topic's max.message.bytes: the size it
 * computes is exactly that of the batch the codec builds for the record alone, and the check
 * refuses one byte over the limit, not at it.
 */
import { encodeBatch, type RecordHeader } from '../../../services/common/records';
import { StreamsError } from '../../../streams';
import { checkRecordFits, singleRecordBatchBytes } from '../../../streams/runtime/record-size';

interface Case {
  name: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

const CASES: Case[] = [
  { name: 'key and value', key: Buffer.from('k'), value: Buffer.from('v'), headers: [] },
  { name: 'null key', key: null, value: Buffer.from('value'), headers: [] },
  { name: 'tombstone', key: Buffer.from('key'), value: null, headers: [] },
  { name: 'a 127/128-byte boundary', key: Buffer.alloc(63), value: Buffer.alloc(64), headers: [] },
  { name: 'a large value (3-byte varints)', key: Buffer.from('k'), value: Buffer.alloc(20_000), headers: [] },
  {
    name: 'headers, one null, one with a non-ASCII key',
    key: Buffer.from('k'),
    value: Buffer.from('v'),
    headers: [
      { key: '__streams.errors.message', value: Buffer.from('négatif') },
      { key: 'clé', value: null },
    ],
  },
];

describe('singleRecordBatchBytes', () => {
  it.each(CASES)('equals the codec for $name', ({ key, value, headers }) => {
    const encoded = encodeBatch([{ key, value, headers, timestampMs: 1_700_000_000_000 }]);
    expect(singleRecordBatchBytes({ key, value, headers })).toBe(encoded.length);
  });
});

describe('checkRecordFits', () => {
  const record = {
    topic: 'out',
    key: Buffer.from('k'),
    value: Buffer.alloc(5_000),
    timestampMs: 0,
    headers: [],
  };
  const size = singleRecordBatchBytes(record);

  it('takes a record exactly at the limit', () => {
    expect(() => checkRecordFits(record, size)).not.toThrow();
  });

  it('refuses one byte over, naming the sizes, the topic and the way out', () => {
    let error: unknown;
    try {
      checkRecordFits(record, size - 1);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StreamsError);
    expect(error).toMatchObject({ kind: 'RECORD_TOO_LARGE', code: 'MESSAGE_TOO_LARGE' });
    expect((error as Error).message).toBe(
      `a record of ${size} bytes for topic out exceeds its max.message.bytes (${size - 1}): make it smaller, ` +
        "raise the topic's max.message.bytes, or set processingErrors to 'continue' or { deadLetterTopic } to skip such records",
    );
  });

  it('never lets its quick bound pass a record one byte too large (random shapes)', () => {
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let i = 0; i < 500; i++) {
      const r = {
        topic: 'out',
        key: next(4) === 0 ? null : Buffer.alloc(next(300)),
        value: next(5) === 0 ? null : Buffer.alloc(next(70_000)),
        timestampMs: 0,
        headers: Array.from({ length: next(4) }, (_, h) => ({
          key: 'é'.repeat(next(40)) + h,
          value: next(3) === 0 ? null : Buffer.alloc(next(200)),
        })),
      };
      const exact = singleRecordBatchBytes(r);
      expect(() => checkRecordFits(r, exact - 1)).toThrow(StreamsError);
      expect(() => checkRecordFits(r, exact)).not.toThrow();
    }
  });
});
