/**
 * Byte layouts of the LMDB window and session stores' keys. LMDB orders keys by their bytes, so
 * every part is written so that byte order is the order the stores scan in:
 *
 *   key part   [u32 big-endian length][the key serde's bytes]   groups one key's entries together
 *              (the length first, so no key's bytes are a prefix of another key's entries)
 *   time part  [u64 big-endian: ms + 2^63]                      signed times in numeric order
 *
 * Times are whole milliseconds; anything beyond ±(2^53 - 1) is clamped (a range bound may be
 * ±Infinity).
 */

const TWO_32 = 2 ** 32;

/** 8 bytes whose byte order is the numeric order of `ms`. */
export function encodeTime(ms: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  writeTime(b, 0, ms);
  return b;
}

/**
 * Writes `ms + 2^63` as a big-endian u64 at `at` (two 32-bit halves: no BigInt, which restores
 * and processing did per key). Adding 2^63 is flipping the sign bit of the two's complement.
 */
export function writeTime(b: Buffer, at: number, ms: number): void {
  if (Number.isNaN(ms)) throw new RangeError('a window or session time is NaN');
  const clamped = Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Math.floor(ms)));
  const high = Math.floor(clamped / TWO_32);
  b.writeUInt32BE((high ^ 0x80000000) >>> 0, at);
  b.writeUInt32BE(clamped - high * TWO_32, at + 4);
}

export function decodeTime(b: Buffer, at: number): number {
  return ((b.readUInt32BE(at) ^ 0x80000000) | 0) * TWO_32 + b.readUInt32BE(at + 4);
}

/** [u32 length][key bytes]. */
export function keyPart(key: Buffer): Buffer {
  const b = Buffer.allocUnsafe(4 + key.length);
  b.writeUInt32BE(key.length, 0);
  key.copy(b, 4);
  return b;
}

/**
 * `[key part][time]` or `[key part][time][second time]` from a key's serde bytes in one buffer:
 * the window store's `[start]` and the session store's `[end][start]`, built by restores from
 * the changelog's bytes.
 */
export function keyWithTimes(key: Buffer, time: number, second?: number): Buffer {
  const n = key.length;
  const b = Buffer.allocUnsafe(4 + n + (second === undefined ? 8 : 16));
  b.writeUInt32BE(n, 0);
  key.copy(b, 4);
  writeTime(b, 4 + n, time);
  if (second !== undefined) writeTime(b, 4 + n + 8, second);
  return b;
}

/** The key bytes of a key part starting at `at`, and where the part ends. */
export function readKeyPart(b: Buffer, at: number): { key: Buffer; end: number } {
  const length = b.readUInt32BE(at);
  return { key: b.subarray(at + 4, at + 4 + length), end: at + 4 + length };
}

/** A bound above every key that starts with `prefix` and has at most 16 bytes more. */
export function afterPrefix(prefix: Buffer): Buffer {
  return Buffer.concat([prefix, Buffer.alloc(17, 0xff)]);
}

/** The keys `prefix` + at most 16 bytes (one key's entries, in stores keyed [key part][times]). */
export function prefixRange(prefix: Buffer): { start: Buffer; end: Buffer } {
  return { start: prefix, end: afterPrefix(prefix) };
}

/** The smallest key greater than `key` (a range end that includes `key` itself). */
export function justAfter(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.alloc(1)]);
}
