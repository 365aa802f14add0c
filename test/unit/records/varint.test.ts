import { TideError } from '../../../services/common/errors';
import {
  BufferReader,
  readInt64Number,
  readVarint,
  readVarlong,
  readVarlongBig,
  sizeOfVarint,
  sizeOfVarlong,
  sizeOfVarlongBig,
  writeInt64Number,
  writeVarint,
  writeVarlong,
  writeVarlongBig,
} from '../../../services/common/records/varint';
import { seededRandom } from '../../harness/random';
import { kafkajsVarint, kafkajsVarlong } from './kafkajs-oracle';

function encodeVarint(value: number): Buffer {
  const buf = Buffer.alloc(16);
  return buf.subarray(0, writeVarint(buf, value, 0));
}

function encodeVarlong(value: number): Buffer {
  const buf = Buffer.alloc(16);
  return buf.subarray(0, writeVarlong(buf, value, 0));
}

function encodeVarlongBig(value: bigint): Buffer {
  const buf = Buffer.alloc(16);
  return buf.subarray(0, writeVarlongBig(buf, value, 0));
}

function expectInvalidRecord(fn: () => unknown, message: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TideError);
    expect((err as TideError).code).toBe('INVALID_RECORD');
    expect((err as TideError).message).toMatch(message);
    return;
  }
  throw new Error('expected a TideError INVALID_RECORD');
}

const INT32_CASES = [
  0,
  1,
  -1,
  2,
  -2,
  63,
  -64,
  64,
  -65,
  8191,
  -8192,
  8192,
  2 ** 20,
  -(2 ** 20),
  2 ** 27,
  2 ** 30,
  -(2 ** 30),
  2 ** 31 - 1,
  -(2 ** 31),
];

describe('varint (int32)', () => {
  test.each([
    [0, '00'],
    [-1, '01'],
    [1, '02'],
    [-64, '7f'],
    [64, '8001'],
    [300, 'd804'],
    [2 ** 31 - 1, 'feffffff0f'],
    [-(2 ** 31), 'ffffffff0f'],
  ])('%d encodes as %s', (value, hex) => {
    expect(encodeVarint(value).toString('hex')).toBe(hex);
  });

  test.each(INT32_CASES)('%d matches kafkajs, its size and round-trips', (value) => {
    const bytes = encodeVarint(value);
    expect(bytes).toEqual(kafkajsVarint(value));
    expect(sizeOfVarint(value)).toBe(bytes.length);
    expect(readVarint(bytes)).toEqual({ value, sizeBytes: bytes.length });
  });

  test('random int32 values match kafkajs and round-trip', () => {
    const random = seededRandom(1);
    for (let i = 0; i < 5000; i++) {
      const value = (random() * 2 ** 32) | 0;
      const bytes = encodeVarint(value);
      expect(bytes).toEqual(kafkajsVarint(value));
      expect(sizeOfVarint(value)).toBe(bytes.length);
      expect(readVarint(bytes).value).toBe(value);
    }
  });

  test('short varints (the inlined one- to three-byte path) read alike at the end of input and inside it', () => {
    const random = seededRandom(2);
    const values = [-64, 63, -65, 64, -8192, 8191, -8193, 8192, -1048576, 1048575, -1048577, 1048576];
    for (let i = 0; i < 5000; i++) values.push(Math.floor((random() - 0.5) * 2 ** 22));
    for (const value of values) {
      const bytes = encodeVarint(value);
      expect(readVarint(bytes)).toEqual({ value, sizeBytes: bytes.length });
      const padded = new BufferReader(
        Buffer.concat([Buffer.from([0xff]), bytes, Buffer.from('ffff', 'hex')]),
        1,
      );
      expect(padded.readVarint()).toBe(value);
      expect(padded.pos).toBe(1 + bytes.length);
      // The reader's end, not the buffer's, bounds the fast path.
      if (bytes.length > 1) {
        const cut = new BufferReader(Buffer.concat([bytes, Buffer.from('00', 'hex')]), 0, bytes.length - 1);
        expectInvalidRecord(() => cut.readVarint(), /truncated varint/);
      }
    }
  });

  test('truncated and over-long input give INVALID_RECORD', () => {
    expectInvalidRecord(() => readVarint(Buffer.alloc(0)), /truncated varint/);
    expectInvalidRecord(() => readVarint(Buffer.from('8080', 'hex')), /truncated varint/);
    expectInvalidRecord(() => readVarint(Buffer.from('ffffffffff01', 'hex')), /longer than 5 bytes/);
    expectInvalidRecord(
      () => new BufferReader(Buffer.from('0280', 'hex'), 1).readVarint(),
      /truncated varint at byte 1/,
    );
  });
});

describe('varlong (safe integers as numbers)', () => {
  const cases = [
    ...INT32_CASES,
    2 ** 30 - 1,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 32,
    1_700_000_000_000,
    -1_700_000_000_000,
    2 ** 48 + 12345,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER - 1,
    Number.MIN_SAFE_INTEGER + 1,
  ];

  test.each(cases)('%d matches kafkajs, its size and round-trips', (value) => {
    const bytes = encodeVarlong(value);
    expect(bytes).toEqual(kafkajsVarlong(BigInt(value)));
    expect(sizeOfVarlong(value)).toBe(bytes.length);
    expect(readVarlong(bytes)).toEqual({ value, sizeBytes: bytes.length });
    expect(readVarlongBig(bytes)).toEqual({ value: BigInt(value), sizeBytes: bytes.length });
  });

  test('random safe integers of every magnitude match kafkajs and round-trip', () => {
    const random = seededRandom(2);
    for (let i = 0; i < 5000; i++) {
      const bits = Math.floor(random() * 54);
      const magnitude = Math.floor(random() * 2 ** bits);
      const value = random() < 0.5 && magnitude !== 0 ? -magnitude : magnitude;
      const bytes = encodeVarlong(value);
      expect(bytes).toEqual(kafkajsVarlong(BigInt(value)));
      expect(sizeOfVarlong(value)).toBe(bytes.length);
      expect(readVarlong(bytes).value).toBe(value);
    }
  });

  test('truncated and over-long input give INVALID_RECORD', () => {
    expectInvalidRecord(() => readVarlong(Buffer.alloc(0)), /truncated varlong/);
    expectInvalidRecord(() => readVarlong(Buffer.from('ffffffff', 'hex')), /truncated varlong/);
    expectInvalidRecord(
      () => readVarlong(Buffer.from('ffffffffffffffffffff01', 'hex')),
      /longer than 10 bytes/,
    );
    expectInvalidRecord(() => readVarlongBig(Buffer.from('ffff', 'hex')), /truncated varlong/);
    expectInvalidRecord(
      () => readVarlongBig(Buffer.from('ffffffffffffffffffff01', 'hex')),
      /longer than 10 bytes/,
    );
  });
});

describe('varlong (full int64 as bigint)', () => {
  const cases = [
    0n,
    -1n,
    1n,
    2n ** 53n,
    -(2n ** 53n) - 1n,
    2n ** 62n,
    -(2n ** 62n) - 1n,
    2n ** 63n - 1n,
    -(2n ** 63n),
  ];

  test.each(cases)('%s matches kafkajs, its size and round-trips', (value) => {
    const bytes = encodeVarlongBig(value);
    expect(bytes).toEqual(kafkajsVarlong(value));
    expect(sizeOfVarlongBig(value)).toBe(bytes.length);
    expect(readVarlongBig(bytes)).toEqual({ value, sizeBytes: bytes.length });
  });

  test('int64 extremes take 10 bytes; numbers read them to the nearest double', () => {
    expect(encodeVarlongBig(2n ** 63n - 1n).toString('hex')).toBe('feffffffffffffffff01');
    expect(encodeVarlongBig(-(2n ** 63n)).toString('hex')).toBe('ffffffffffffffffff01');
    expect(readVarlong(encodeVarlongBig(-(2n ** 63n))).value).toBe(-(2 ** 63));
  });

  test('values outside int64 are refused', () => {
    expect(() => encodeVarlongBig(2n ** 63n)).toThrow(RangeError);
  });
});

describe('BufferReader', () => {
  test('reads a sequence and stops at its end', () => {
    const buf = Buffer.from('7f' + '01' + '0203' + 'ff', 'hex');
    const reader = new BufferReader(buf, 0, 4);
    expect(reader.readInt8()).toBe(127);
    expect(reader.readVarint()).toBe(-1);
    expect(reader.readBytes(2)).toEqual(Buffer.from('0203', 'hex'));
    expect(reader.remaining).toBe(0);
    expectInvalidRecord(() => reader.readInt8(), /truncated int8/);
    expectInvalidRecord(() => reader.readBytes(1), /truncated input: 1 bytes needed at byte 4, 0 left/);
  });
});

describe('int64 as number', () => {
  test.each([
    0,
    1,
    -1,
    2 ** 32,
    -(2 ** 32) - 5,
    1_700_000_000_000,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
  ])('%d matches BigInt encoding', (value) => {
    const ours = Buffer.alloc(8);
    writeInt64Number(ours, value, 0);
    const reference = Buffer.alloc(8);
    reference.writeBigInt64BE(BigInt(value));
    expect(ours).toEqual(reference);
    expect(readInt64Number(reference, 0)).toBe(value);
  });
});
