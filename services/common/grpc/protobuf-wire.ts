/**
 * The few pieces of the protobuf wire format that hand-built messages need (the zero-copy
 * serializers of services/broker): field keys of length-delimited fields and unsigned varints.
 *
 *   key    = (field number << 3) | wire type       (wire type 2 = length-delimited)
 *   uvarint: 7 bits a byte, least significant group first, high bit set on every byte but the last
 */

/** Wire type of bytes, strings and embedded messages. */
const WIRE_TYPE_LENGTH_DELIMITED = 2;

/** The key byte of length-delimited field `field` (fields 1 to 15 take one byte). */
export function lengthDelimitedKey(field: number): number {
  if (!Number.isInteger(field) || field < 1 || field > 15)
    throw new RangeError(`a one-byte field key needs a field number from 1 to 15, got ${field}`);
  return (field << 3) | WIRE_TYPE_LENGTH_DELIMITED;
}

/** Bytes taken by `n` (an integer 0 <= n < 2^32) as an unsigned varint: 1 to 5. */
export function uvarintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Writes `n` (0 <= n < 2^32) as an unsigned varint at `at`; returns the position after it. */
export function writeUvarint(out: Uint8Array, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  return at;
}

/** Reads the unsigned varint at `at`: its value and the position after it. */
export function readUvarint(buf: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let shift = 1, i = at; i < buf.length && i - at < 5; i++, shift *= 128) {
    value += (buf[i] & 0x7f) * shift;
    if (buf[i] < 0x80) return { value, next: i + 1 };
  }
  throw new RangeError(`no complete varint at byte ${at}`);
}
