/**
 * Reads record timestamps inside one uncompressed RecordBatch v2, for offsetForTimestamp's record
 * precision. Only what that needs: each record is
 *
 *   length varint (zigzag) | attributes i8 | timestampDelta varlong (zigzag) | offsetDelta varint
 *   (zigzag) | key, value, headers...
 *
 * and `length` lets us skip the rest without decoding keys, values or headers. This deliberately
 * does not depend on the full record codec (services/common/records/codec.ts).
 */
import {
  OFFSET_BASE_TIMESTAMP,
  OFFSET_RECORD_COUNT,
  OFFSET_RECORDS,
  batchSizeAt,
} from '../../common/records/layout';

interface Varint {
  value: number;
  next: number;
}

/** Zigzag varint of up to 10 bytes, as a JS number (exact up to 2^53). */
function readVarlong(buf: Buffer, at: number, end: number): Varint | undefined {
  let raw = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (at >= end) return undefined;
    const byte = buf[at++];
    raw += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) {
      const value = raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
      return { value, next: at };
    }
    scale *= 128;
  }
  return undefined;
}

/**
 * The offsetDelta of the first record whose timestamp is >= timestampMs, in the uncompressed batch
 * at buf[at]; undefined when no record qualifies or the records are malformed (the caller then
 * falls back to the batch's base offset).
 */
export function firstRecordAtOrAfter(buf: Buffer, at: number, timestampMs: number): number | undefined {
  const end = at + batchSizeAt(buf, at);
  const baseTimestamp = Number(buf.readBigInt64BE(at + OFFSET_BASE_TIMESTAMP));
  const count = buf.readInt32BE(at + OFFSET_RECORD_COUNT);
  let p = at + OFFSET_RECORDS;
  for (let i = 0; i < count; i++) {
    const length = readVarlong(buf, p, end);
    if (!length || length.value < 0) return undefined;
    const recordEnd = length.next + length.value;
    if (recordEnd > end) return undefined;
    const timestampDelta = readVarlong(buf, length.next + 1, recordEnd);
    if (!timestampDelta) return undefined;
    const offsetDelta = readVarlong(buf, timestampDelta.next, recordEnd);
    if (!offsetDelta) return undefined;
    if (baseTimestamp + timestampDelta.value >= timestampMs) return offsetDelta.value;
    p = recordEnd;
  }
  return undefined;
}
