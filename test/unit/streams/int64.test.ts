import { readInt64BE, writeInt64BE } from '../../../streams/int64';
import { Serdes } from '../../../streams/serdes';
import { stampedSerde } from '../../../streams/state/persistent';

const VALUES = [
  0,
  1,
  -1,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 32,
  -(2 ** 32) - 1,
  1_767_225_600_000,
  -1_767_225_600_123,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
];

describe('int64 as two 32-bit halves', () => {
  test.each(VALUES)('%d: the bytes of Kafka long layout (BigInt64BE), and back', (v) => {
    const halves = Buffer.alloc(10);
    writeInt64BE(halves, 1, v);
    const big = Buffer.alloc(10);
    big.writeBigInt64BE(BigInt(v), 1);
    expect(halves).toEqual(big);
    expect(readInt64BE(big, 1)).toBe(v);
  });

  test('a value that is not a safe integer is refused, as BigInt() refuses a fraction', () => {
    for (const v of [1.5, NaN, Infinity, 2 ** 53]) {
      expect(() => writeInt64BE(Buffer.alloc(8), 0, v)).toThrow(RangeError);
    }
  });

  test('windowed keys and stamped values keep their layout', () => {
    const windowed = Serdes.windowed(Serdes.string);
    const key = { key: 'k', window: { start: -5_000, end: 1_767_225_610_000 } };
    const bytes = windowed.serialize(key);
    expect(bytes.readBigInt64BE(1)).toBe(-5_000n);
    expect(bytes.readBigInt64BE(9)).toBe(1_767_225_610_000n);
    expect(windowed.deserialize(bytes)).toEqual(key);
    const stamped = stampedSerde(Serdes.number);
    const value = stamped.serialize({ timestamp: 1_767_225_600_001, value: 3 });
    expect(value.readBigInt64BE(0)).toBe(1_767_225_600_001n);
    expect(stamped.deserialize(value)).toEqual({ timestamp: 1_767_225_600_001, value: 3 });
  });
});
