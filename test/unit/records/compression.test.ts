import { gzipSync } from 'zlib';
import { compressSync } from 'snappy';
import { TideError } from '../../../services/common/errors';
import {
  CompressionCodec,
  compress,
  compressionName,
  decompress,
  parseCompression,
} from '../../../services/common/records';
import { seededRandom } from '../../harness/random';

function sample(bytes: number, seed = 7): Buffer {
  const random = seededRandom(seed);
  const words = ['tide', 'log', 'offset', 'partition', 'ü', '🌊', ' '];
  const parts: string[] = [];
  for (let n = 0; n < bytes; n++) parts.push(words[Math.floor(random() * words.length)]);
  return Buffer.from(parts.join('')).subarray(0, bytes);
}

function xerial(data: Buffer, blockBytes: number): Buffer {
  const parts: Buffer[] = [Buffer.from('82534e41505059000000000100000001', 'hex')];
  for (let at = 0; at < data.length; at += blockBytes) {
    const block = compressSync(data.subarray(at, at + blockBytes));
    const length = Buffer.alloc(4);
    length.writeInt32BE(block.length);
    parts.push(length, block);
  }
  return Buffer.concat(parts);
}

/** jest's toEqual walks Buffers element by element; this is fast on large ones. */
function expectSameBytes(actual: Buffer, expected: Buffer): void {
  expect({ length: actual.length, equal: actual.equals(expected) }).toEqual({
    length: expected.length,
    equal: true,
  });
}

function thrown(fn: () => unknown): TideError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TideError);
    return err as TideError;
  }
  throw new Error('expected a TideError');
}

describe('compress / decompress', () => {
  test.each([CompressionCodec.None, CompressionCodec.Gzip, CompressionCodec.Snappy])(
    'codec %d round-trips',
    (codec) => {
      for (const size of [1, 100, 70_000]) {
        const data = sample(size);
        expectSameBytes(decompress(codec, compress(codec, data)), data);
      }
    },
  );

  test('gzip output is standard gzip and snappy output a raw block', () => {
    const data = sample(5000);
    const gz = compress(CompressionCodec.Gzip, data);
    expect(gz.subarray(0, 2).toString('hex')).toBe('1f8b');
    expectSameBytes(compress(CompressionCodec.Snappy, data), compressSync(data));
  });

  test('gzip input may hold several members', () => {
    const a = sample(300, 1);
    const b = sample(400, 2);
    expectSameBytes(
      decompress(CompressionCodec.Gzip, Buffer.concat([gzipSync(a), gzipSync(b)])),
      Buffer.concat([a, b]),
    );
  });

  test('snappy input may be xerial-framed, with one or many blocks', () => {
    const data = sample(100_000);
    expectSameBytes(decompress(CompressionCodec.Snappy, xerial(data, 200_000)), data);
    expectSameBytes(decompress(CompressionCodec.Snappy, xerial(data, 32 * 1024)), data);
    expectSameBytes(decompress(CompressionCodec.Snappy, xerial(Buffer.alloc(0), 1)), Buffer.alloc(0));
  });

  test('a truncated xerial stream is INVALID_RECORD', () => {
    const framed = xerial(sample(1000), 300);
    for (const cut of [17, 19, framed.length - 1]) {
      expect(thrown(() => decompress(CompressionCodec.Snappy, framed.subarray(0, cut))).code).toBe(
        'INVALID_RECORD',
      );
    }
  });

  test('garbage is INVALID_RECORD, not a raw error', () => {
    const garbage = Buffer.from('not compressed at all, really');
    for (const codec of [CompressionCodec.Gzip, CompressionCodec.Snappy]) {
      const err = thrown(() => decompress(codec, garbage));
      expect(err.code).toBe('INVALID_RECORD');
      expect(err.message).toMatch(/do not decompress/);
    }
  });

  test.each([
    [CompressionCodec.Lz4, 'lz4'],
    [CompressionCodec.Zstd, 'zstd'],
  ])('codec %d (%s) round-trips binary data and refuses garbage', (codec, name) => {
    const data = Buffer.concat([
      Buffer.alloc(5000, 0x61),
      Buffer.from([0, 0xff, 0xfe, 0x80]),
      Buffer.alloc(300, 7),
    ]);
    const packed = compress(codec, data);
    expect(packed.length).toBeLessThan(data.length);
    expect(decompress(codec, packed).equals(data)).toBe(true);
    const err = thrown(() => decompress(codec, Buffer.from('not a frame at all')));
    expect(err.code).toBe('INVALID_RECORD');
    expect(err.message).toMatch(new RegExp(`${name} records do not decompress`));
  });

  test('lz4 writes the LZ4 frame format (magic 04 22 4d 18) and zstd a Zstandard frame (28 b5 2f fd)', () => {
    expect(compress(CompressionCodec.Lz4, Buffer.from('hello')).subarray(0, 4).toString('hex')).toBe(
      '04224d18',
    );
    expect(compress(CompressionCodec.Zstd, Buffer.from('hello')).subarray(0, 4).toString('hex')).toBe(
      '28b52ffd',
    );
  });

  test('unknown codec numbers are refused', () => {
    expect(thrown(() => decompress(6 as CompressionCodec, Buffer.from('x'))).message).toMatch(
      /unknown compression codec 6/,
    );
  });
});

describe('parseCompression', () => {
  test.each([
    ['none', CompressionCodec.None],
    ['gzip', CompressionCodec.Gzip],
    ['snappy', CompressionCodec.Snappy],
    ['GZIP', CompressionCodec.Gzip],
    [' snappy ', CompressionCodec.Snappy],
    ['lz4', CompressionCodec.Lz4],
    ['ZSTD', CompressionCodec.Zstd],
  ])('%j -> %d', (name, codec) => {
    expect(parseCompression(name)).toBe(codec);
    expect(parseCompression(compressionName(codec))).toBe(codec);
  });

  test.each(['brotli', ''])('%j is refused, listing the valid values', (name) => {
    const err = thrown(() => parseCompression(name));
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toContain("valid values: 'none', 'gzip', 'snappy', 'lz4', 'zstd'");
  });
});
