/**
 * Compression of a RecordBatch's records section (bytes [61, end) of the batch), per the codec in
 * bits 0-2 of the batch attributes.
 *
 *   None    the bytes as they are
 *   Gzip    RFC 1952 gzip (node zlib); decompression accepts concatenated members
 *   Snappy  raw snappy blocks on output. Input may also be the xerial framing that Java Kafka
 *           clients write:
 *             offset 0  8 bytes  magic 0x82 'S' 'N' 'A' 'P' 'P' 'Y' 0x00
 *                    8  4 bytes  version (1), then 4 bytes min compatible version (1)
 *                   16  repeated [int32 BE block length][raw snappy block]
 *   Lz4     one LZ4 frame (lz4.org frame format, magic 0x184D2204), as Kafka's lz4 codec and
 *           kafkajs-compatible decoders write and read it (pure-JS `lz4js`)
 *   Zstd    one Zstandard frame (RFC 8878), as Kafka's zstd codec writes it (`zstd-napi`, the
 *           reference C library)
 *
 * Failures to decompress throw TideError INVALID_RECORD (the batch passed its CRC, so the producer
 * sent bytes that do not decompress).
 */
import { gunzipSync, gzipSync } from 'zlib';
import { compressSync, uncompressSync } from 'snappy';
import * as lz4 from 'lz4js';
import * as zstd from 'zstd-napi';
import { TideError } from '../errors';
import { CompressionCodec } from './layout';

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;

const CODEC_NAMES: Record<string, CompressionCodec> = {
  none: CompressionCodec.None,
  gzip: CompressionCodec.Gzip,
  snappy: CompressionCodec.Snappy,
  lz4: CompressionCodec.Lz4,
  zstd: CompressionCodec.Zstd,
};
const SUPPORTED_NAMES = Object.keys(CODEC_NAMES);

/** Lower-case name of a codec as Kafka's `compression.type` spells it ('none', 'gzip', ...). */
export function compressionName(codec: CompressionCodec): string {
  switch (codec) {
    case CompressionCodec.None:
      return 'none';
    case CompressionCodec.Gzip:
      return 'gzip';
    case CompressionCodec.Snappy:
      return 'snappy';
    case CompressionCodec.Lz4:
      return 'lz4';
    case CompressionCodec.Zstd:
      return 'zstd';
    default:
      return `unknown(${codec as number})`;
  }
}

/**
 * Parses a `compression.type`-style name (case-insensitive) into a supported codec. Throws
 * TideError INVALID_CONFIG listing the valid values otherwise.
 */
export function parseCompression(name: string): CompressionCodec {
  const codec = CODEC_NAMES[name.trim().toLowerCase()];
  if (codec !== undefined) return codec;
  const valid = SUPPORTED_NAMES.map((n) => `'${n}'`).join(', ');
  throw new TideError(
    'INVALID_CONFIG',
    `compression '${name}' is not a compression type; valid values: ${valid}`,
  );
}

/** Compresses `data` with `codec`. None returns `data` itself. */
export function compress(codec: CompressionCodec, data: Buffer): Buffer {
  switch (codec) {
    case CompressionCodec.None:
      return data;
    case CompressionCodec.Gzip:
      return gzipSync(data);
    case CompressionCodec.Snappy:
      return compressSync(data, { copyOutputData: true });
    case CompressionCodec.Lz4: {
      const out = lz4.compress(data);
      return Buffer.from(out.buffer, out.byteOffset, out.length);
    }
    case CompressionCodec.Zstd:
      return zstd.compress(data);
    default:
      throw unsupported(codec);
  }
}

/**
 * Decompresses `data` written with `codec`. None returns `data` itself. With `maxOutputBytes`,
 * records that would decompress to more are INVALID_RECORD before the memory is taken (a small
 * gzip or snappy "bomb" can claim gigabytes); the broker bounds what it decompresses to check.
 */
export function decompress(codec: CompressionCodec, data: Buffer, maxOutputBytes = Infinity): Buffer {
  const limited = Number.isFinite(maxOutputBytes);
  switch (codec) {
    case CompressionCodec.None:
      return data;
    case CompressionCodec.Gzip:
      try {
        return limited ? gunzipSync(data, { maxOutputLength: maxOutputBytes }) : gunzipSync(data);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
          throw tooLarge(maxOutputBytes);
        throw new TideError('INVALID_RECORD', `gzip records do not decompress: ${(err as Error).message}`, {
          cause: err,
        });
      }
    case CompressionCodec.Snappy:
      return isXerialFramed(data)
        ? decompressXerial(data, maxOutputBytes)
        : snappyBlock(data, 0, data.length, maxOutputBytes);
    case CompressionCodec.Lz4:
      return bounded(
        decompressWith('lz4', () => {
          const out = lz4.decompress(data);
          return Buffer.from(out.buffer, out.byteOffset, out.length);
        }),
        maxOutputBytes,
      );
    case CompressionCodec.Zstd:
      return bounded(
        decompressWith('zstd', () => zstd.decompress(data)),
        maxOutputBytes,
      );
    default:
      throw unsupported(codec);
  }
}

function tooLarge(maxOutputBytes: number): TideError {
  return new TideError('INVALID_RECORD', `records decompress to more than ${maxOutputBytes} bytes`);
}

/** The uncompressed length a raw snappy block declares (its leading varint), or -1 if unreadable. */
function snappyDeclaredLength(data: Buffer, start: number, end: number): number {
  let value = 0;
  for (let i = 0, pos = start; i < 5 && pos < end; i++, pos++) {
    value += (data[pos] & 0x7f) * 2 ** (7 * i);
    if ((data[pos] & 0x80) === 0) return value;
  }
  return -1;
}

function bounded(out: Buffer, maxOutputBytes: number): Buffer {
  if (out.length > maxOutputBytes) throw tooLarge(maxOutputBytes);
  return out;
}

function decompressWith(name: string, fn: () => Buffer): Buffer {
  try {
    return fn();
  } catch (err) {
    throw new TideError('INVALID_RECORD', `${name} records do not decompress: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

function unsupported(codec: CompressionCodec): TideError {
  return new TideError('INVALID_RECORD', `unknown compression codec ${codec as number} in batch attributes`);
}

function isXerialFramed(data: Buffer): boolean {
  return data.length >= XERIAL_HEADER_BYTES && data.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC);
}

function decompressXerial(data: Buffer, maxOutputBytes: number): Buffer {
  const parts: Buffer[] = [];
  let total = 0;
  let pos = XERIAL_HEADER_BYTES;
  while (pos < data.length) {
    if (data.length - pos < 4) {
      throw new TideError(
        'INVALID_RECORD',
        `xerial snappy stream truncated in a block length at byte ${pos}`,
      );
    }
    const length = data.readInt32BE(pos);
    pos += 4;
    if (length < 0 || length > data.length - pos) {
      throw new TideError(
        'INVALID_RECORD',
        `xerial snappy block at byte ${pos - 4} claims ${length} bytes, ${data.length - pos} left`,
      );
    }
    const part = snappyBlock(data, pos, pos + length, maxOutputBytes - total);
    total += part.length;
    parts.push(part);
    pos += length;
  }
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

function snappyBlock(data: Buffer, start: number, end: number, maxOutputBytes = Infinity): Buffer {
  if (Number.isFinite(maxOutputBytes) && snappyDeclaredLength(data, start, end) > maxOutputBytes)
    throw tooLarge(maxOutputBytes);
  try {
    return uncompressSync(data.subarray(start, end), { asBuffer: true, copyOutputData: true }) as Buffer;
  } catch (err) {
    throw new TideError('INVALID_RECORD', `snappy records do not decompress: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
