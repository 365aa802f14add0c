/**
 * Zigzag varints as Kafka's record format uses them (protobuf `sint32` / `sint64` encoding).
 *
 *   zigzag(n) = (n << 1) ^ (n >> 63)   so 0, -1, 1, -2, 2 ... become 0, 1, 2, 3, 4 ...
 *   the zigzag value is written 7 bits at a time, least significant group first; the high bit of
 *   each byte says another byte follows. A varint takes at most 5 bytes, a varlong at most 10.
 *
 * Varints (int32) and varlongs held in JS numbers are the hot path (record lengths, offset and
 * timestamp deltas) and never touch BigInt. Number varlongs are exact for safe integers
 * (|n| <= 2^53 - 1); the `*Big` variants cover the full int64 range.
 *
 * Writers take the target position and return the position after the last byte written; they do
 * not check capacity (size the buffer with `sizeOfVarint` / `sizeOfVarlong` first). Readers throw
 * TideError INVALID_RECORD on truncated or over-long input, never a RangeError.
 */
import { TideError } from '../errors';

export const VARINT_BYTES_MAX = 5;
export const VARLONG_BYTES_MAX = 10;

const TWO_POW_32 = 0x1_0000_0000;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Bytes taken by `value` (an int32) as a zigzag varint: 1 to 5. */
export function sizeOfVarint(value: number): number {
  const zz = ((value << 1) ^ (value >> 31)) >>> 0;
  if (zz < 0x80) return 1;
  if (zz < 0x4000) return 2;
  if (zz < 0x20_0000) return 3;
  if (zz < 0x1000_0000) return 4;
  return 5;
}

/** Bytes taken by `value` (a safe integer) as a zigzag varlong: 1 to 9 (10 only beyond 2^62). */
export function sizeOfVarlong(value: number): number {
  if (value >= -0x4000_0000 && value < 0x4000_0000) return sizeOfVarint(value);
  // zigzag(n) < 2^(7k) <=> magnitude < 2^(7k-1), with magnitude = n or -n - 1.
  let magnitude = value < 0 ? -value - 1 : value;
  let size = 1;
  magnitude = Math.floor(magnitude / 64); // the first byte carries 6 bits of magnitude
  while (magnitude > 0) {
    size++;
    magnitude = Math.floor(magnitude / 128);
  }
  return size;
}

/** Writes `value` (an int32) as a zigzag varint at `at`; returns the position after it. */
export function writeVarint(buf: Buffer, value: number, at: number): number {
  let zz = ((value << 1) ^ (value >> 31)) >>> 0;
  while (zz >= 0x80) {
    buf[at++] = (zz & 0x7f) | 0x80;
    zz >>>= 7;
  }
  buf[at++] = zz;
  return at;
}

/**
 * Writes `value` (a safe integer) as a zigzag varlong at `at`; returns the position after it.
 * Values outside the safe range are written as their nearest double, which is what they already are.
 */
export function writeVarlong(buf: Buffer, value: number, at: number): number {
  if (value >= -0x4000_0000 && value < 0x4000_0000) return writeVarint(buf, value, at);
  // zigzag(n) = 2 * magnitude + sign; split it without forming the (possibly inexact) product.
  const sign = value < 0 ? 1 : 0;
  let magnitude = sign ? -value - 1 : value;
  buf[at++] = ((magnitude % 64) << 1) | sign | 0x80;
  magnitude = Math.floor(magnitude / 64);
  while (magnitude >= 0x80) {
    buf[at++] = (magnitude % 128) | 0x80;
    magnitude = Math.floor(magnitude / 128);
  }
  buf[at++] = magnitude;
  return at;
}

/** Bytes taken by `value` (an int64) as a zigzag varlong: 1 to 10. */
export function sizeOfVarlongBig(value: bigint): number {
  let zz = zigzagBig(value);
  let size = 1;
  while (zz >= 0x80n) {
    size++;
    zz >>= 7n;
  }
  return size;
}

/** Writes `value` (an int64) as a zigzag varlong at `at`; returns the position after it. */
export function writeVarlongBig(buf: Buffer, value: bigint, at: number): number {
  let zz = zigzagBig(value);
  while (zz >= 0x80n) {
    buf[at++] = Number(zz & 0x7fn) | 0x80;
    zz >>= 7n;
  }
  buf[at++] = Number(zz);
  return at;
}

function zigzagBig(value: bigint): bigint {
  if (value < INT64_MIN || value > INT64_MAX) throw new RangeError(`${value} is outside the int64 range`);
  return value < 0n ? -2n * value - 1n : 2n * value;
}

/**
 * A cursor over `buf[pos, end)` for decoding. Reads past `end` or over-long varints throw
 * TideError INVALID_RECORD naming `what` (e.g. "record 3 of batch at offset 100").
 */
export class BufferReader {
  /** Next byte to read. */
  pos: number;

  constructor(
    readonly buf: Buffer,
    pos = 0,
    /** One past the last readable byte. */
    public end = buf.length,
  ) {
    this.pos = pos;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /**
   * Reads a zigzag varint (int32). Varints of up to three bytes (values -1,048,576..1,048,575: the
   * lengths, offset deltas and counts of a batch) take a path small enough for the JIT to inline
   * at every call.
   */
  readVarint(): number {
    const buf = this.buf;
    const pos = this.pos;
    const end = this.end;
    if (pos < end) {
      const b0 = buf[pos];
      if (b0 < 0x80) {
        this.pos = pos + 1;
        return (b0 >>> 1) ^ -(b0 & 1);
      }
      if (pos + 1 < end) {
        const b1 = buf[pos + 1];
        if (b1 < 0x80) {
          const zz = (b0 & 0x7f) | (b1 << 7);
          this.pos = pos + 2;
          return (zz >>> 1) ^ -(zz & 1);
        }
        if (pos + 2 < end) {
          const b2 = buf[pos + 2];
          if (b2 < 0x80) {
            const zz = (b0 & 0x7f) | ((b1 & 0x7f) << 7) | (b2 << 14);
            this.pos = pos + 3;
            return (zz >>> 1) ^ -(zz & 1);
          }
        }
      }
    }
    return this.readVarintSlow();
  }

  private readVarintSlow(): number {
    const buf = this.buf;
    let pos = this.pos;
    let zz = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (pos >= this.end) throw this.truncated('varint');
      const b = buf[pos++];
      zz |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return (zz >>> 1) ^ -(zz & 1);
      }
    }
    throw new TideError('INVALID_RECORD', `malformed varint at byte ${this.pos}: longer than 5 bytes`);
  }

  /** Reads a zigzag varlong as a number: exact for safe integers, the nearest double beyond. */
  readVarlong(): number {
    const pos = this.pos;
    if (pos < this.end) {
      const b0 = this.buf[pos];
      if (b0 < 0x80) {
        this.pos = pos + 1;
        return b0 & 1 ? -(b0 >>> 1) - 1 : b0 >>> 1;
      }
    }
    return this.readVarlongSlow();
  }

  private readVarlongSlow(): number {
    const buf = this.buf;
    const start = this.pos;
    let pos = start;
    if (pos >= this.end) throw this.truncated('varlong');
    let b = buf[pos++];
    const sign = b & 1;
    let magnitude = (b & 0x7f) >>> 1;
    let scale = 64;
    while (b >= 0x80) {
      if (pos - start >= VARLONG_BYTES_MAX) {
        throw new TideError('INVALID_RECORD', `malformed varlong at byte ${start}: longer than 10 bytes`);
      }
      if (pos >= this.end) throw this.truncated('varlong');
      b = buf[pos++];
      magnitude += (b & 0x7f) * scale;
      scale *= 128;
    }
    this.pos = pos;
    return sign ? -magnitude - 1 : magnitude;
  }

  /** Reads a zigzag varlong over the full int64 range. */
  readVarlongBig(): bigint {
    const buf = this.buf;
    const start = this.pos;
    let pos = start;
    let zz = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (pos >= this.end) throw this.truncated('varlong');
      const b = buf[pos++];
      zz |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        zz = BigInt.asUintN(64, zz);
        return BigInt.asIntN(64, (zz >> 1n) ^ -(zz & 1n));
      }
    }
    throw new TideError('INVALID_RECORD', `malformed varlong at byte ${start}: longer than 10 bytes`);
  }

  /** Returns a view of the next `length` bytes (no copy) and moves past them. */
  readBytes(length: number): Buffer {
    const pos = this.pos;
    if (length > this.end - pos) {
      throw new TideError(
        'INVALID_RECORD',
        `truncated input: ${length} bytes needed at byte ${pos}, ${this.end - pos} left`,
      );
    }
    this.pos = pos + length;
    return this.buf.subarray(pos, pos + length);
  }

  /** Moves past the next `length` bytes. */
  skip(length: number): void {
    if (length > this.end - this.pos) {
      throw new TideError(
        'INVALID_RECORD',
        `truncated input: ${length} bytes needed at byte ${this.pos}, ${this.end - this.pos} left`,
      );
    }
    this.pos += length;
  }

  /** Reads one byte as a signed int8. */
  readInt8(): number {
    if (this.pos >= this.end) throw this.truncated('int8');
    const b = this.buf[this.pos++];
    return (b << 24) >> 24;
  }

  private truncated(what: string): TideError {
    return new TideError(
      'INVALID_RECORD',
      `truncated ${what} at byte ${this.pos}: input ends at byte ${this.end}`,
    );
  }
}

/** Decodes one zigzag varint at `at`; returns the value and the number of bytes it took. */
export function readVarint(buf: Buffer, at = 0): { value: number; sizeBytes: number } {
  const reader = new BufferReader(buf, at);
  const value = reader.readVarint();
  return { value, sizeBytes: reader.pos - at };
}

/** Decodes one zigzag varlong at `at` as a number (exact for safe integers). */
export function readVarlong(buf: Buffer, at = 0): { value: number; sizeBytes: number } {
  const reader = new BufferReader(buf, at);
  const value = reader.readVarlong();
  return { value, sizeBytes: reader.pos - at };
}

/** Decodes one zigzag varlong at `at` over the full int64 range. */
export function readVarlongBig(buf: Buffer, at = 0): { value: bigint; sizeBytes: number } {
  const reader = new BufferReader(buf, at);
  const value = reader.readVarlongBig();
  return { value, sizeBytes: reader.pos - at };
}

/** Reads a big-endian int64 as a number; exact when the value is a safe integer. */
export function readInt64Number(buf: Buffer, at: number): number {
  return buf.readInt32BE(at) * TWO_POW_32 + buf.readUInt32BE(at + 4);
}

/** Writes a safe integer as a big-endian int64 without going through BigInt. */
export function writeInt64Number(buf: Buffer, value: number, at: number): void {
  buf.writeInt32BE(Math.floor(value / TWO_POW_32), at);
  buf.writeUInt32BE(value >>> 0, at + 4);
}
