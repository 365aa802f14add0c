/**
 * Big-endian signed 64-bit integers (Kafka's long layout) read and written as two 32-bit halves:
 * exact for safe integers, with no BigInt per call — restores and windowed aggregations convert
 * a time or timestamp for every record.
 */
const TWO_32 = 2 ** 32;

/** Throws RangeError for a value that is not a safe integer, as `BigInt(v)` would for a fraction. */
export function writeInt64BE(b: Buffer, at: number, v: number): void {
  if (!Number.isSafeInteger(v)) throw new RangeError(`${v} is not a safe integer`);
  const high = Math.floor(v / TWO_32);
  b.writeInt32BE(high, at);
  b.writeUInt32BE(v - high * TWO_32, at + 4);
}

/** Exact while the value is a safe integer (|v| < 2^53), as every time Tide writes is. */
export function readInt64BE(b: Buffer, at: number): number {
  return b.readInt32BE(at) * TWO_32 + b.readUInt32BE(at + 4);
}
