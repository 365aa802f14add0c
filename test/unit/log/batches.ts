/**
 * Builds valid RecordBatch v2 bytes for storage tests, by hand from the header layout in
 * services/common/records/layout.ts (no dependency on the full record codec). batches.test.ts
 * checks the output byte for byte against kafkajs 2.2.4's encoder.
 */
import {
  BATCH_HEADER_BYTES,
  LOG_OVERHEAD_BYTES,
  MAGIC_V2,
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_OFFSET,
  OFFSET_BASE_SEQUENCE,
  OFFSET_BASE_TIMESTAMP,
  OFFSET_BATCH_LENGTH,
  OFFSET_LAST_OFFSET_DELTA,
  OFFSET_MAGIC,
  OFFSET_MAX_TIMESTAMP,
  OFFSET_PARTITION_LEADER_EPOCH,
  OFFSET_PRODUCER_EPOCH,
  OFFSET_PRODUCER_ID,
  OFFSET_RECORD_COUNT,
  readBatchHeader,
  writeBatchCrc,
  type BatchHeader,
} from '../../../services/common/records/layout';

export const BASE_TIMESTAMP_MS = 1_700_000_000_000;

export interface TestRecord {
  key?: Buffer | string | null;
  value?: Buffer | string | null;
  /** Absolute timestamp; default: the batch's base timestamp. */
  timestampMs?: number;
  headers?: Array<[string, Buffer | string]>;
}

export interface BatchSpec {
  /** A record list, or a count of records with `value-<i>` values. Default 1. */
  records?: number | TestRecord[];
  /** Size of each generated value when records is a count (default: short text). */
  valueBytes?: number;
  /** First record's timestamp (default BASE_TIMESTAMP_MS). */
  timestampMs?: number;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  /** Extra attribute bits (compression codec, timestamp type...); records stay uncompressed bytes. */
  attributes?: number;
  baseOffset?: number;
  partitionLeaderEpoch?: number;
}

function zigzag(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

function varint(n: number): Buffer {
  let v = zigzag(n);
  const bytes: number[] = [];
  while (v >= 0x80) {
    bytes.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

function bytesField(value: Buffer | string | null | undefined): Buffer {
  if (value === null || value === undefined) return varint(-1);
  const buf = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([varint(buf.length), buf]);
}

function encodeRecord(record: TestRecord, offsetDelta: number, baseTimestamp: number): Buffer {
  const headers = record.headers ?? [];
  const body = Buffer.concat([
    Buffer.from([0]),
    varint((record.timestampMs ?? baseTimestamp) - baseTimestamp),
    varint(offsetDelta),
    bytesField(record.key),
    bytesField(record.value),
    varint(headers.length),
    ...headers.flatMap(([k, v]) => [bytesField(k), bytesField(v)]),
  ]);
  return Buffer.concat([varint(body.length), body]);
}

/** A valid batch (correct CRC32C). */
export function buildBatch(spec: BatchSpec = {}): Buffer {
  const count = spec.records ?? 1;
  const records: TestRecord[] =
    typeof count === 'number'
      ? Array.from({ length: count }, (_, i) => ({
          value: spec.valueBytes === undefined ? `value-${i}` : Buffer.alloc(spec.valueBytes, i % 256),
        }))
      : count;
  const baseTimestamp = spec.timestampMs ?? BASE_TIMESTAMP_MS;
  const timestamps = records.map((r) => r.timestampMs ?? baseTimestamp);
  const maxTimestamp = timestamps.length > 0 ? Math.max(...timestamps) : baseTimestamp;
  const body = Buffer.concat(records.map((r, i) => encodeRecord(r, i, baseTimestamp)));
  const buf = Buffer.alloc(BATCH_HEADER_BYTES + body.length);
  buf.writeBigInt64BE(BigInt(spec.baseOffset ?? 0), OFFSET_BASE_OFFSET);
  buf.writeInt32BE(buf.length - LOG_OVERHEAD_BYTES, OFFSET_BATCH_LENGTH);
  buf.writeInt32BE(spec.partitionLeaderEpoch ?? 0, OFFSET_PARTITION_LEADER_EPOCH);
  buf.writeInt8(MAGIC_V2, OFFSET_MAGIC);
  buf.writeInt16BE(spec.attributes ?? 0, OFFSET_ATTRIBUTES);
  buf.writeInt32BE(records.length - 1, OFFSET_LAST_OFFSET_DELTA);
  buf.writeBigInt64BE(BigInt(baseTimestamp), OFFSET_BASE_TIMESTAMP);
  buf.writeBigInt64BE(BigInt(maxTimestamp), OFFSET_MAX_TIMESTAMP);
  buf.writeBigInt64BE(BigInt(spec.producerId ?? -1), OFFSET_PRODUCER_ID);
  buf.writeInt16BE(spec.producerEpoch ?? (spec.producerId === undefined ? -1 : 0), OFFSET_PRODUCER_EPOCH);
  buf.writeInt32BE(spec.baseSequence ?? (spec.producerId === undefined ? -1 : 0), OFFSET_BASE_SEQUENCE);
  buf.writeInt32BE(records.length, OFFSET_RECORD_COUNT);
  body.copy(buf, BATCH_HEADER_BYTES);
  writeBatchCrc(buf);
  return buf;
}

/** Changes header fields of a built batch and (unless keepCrc) fixes the CRC. */
export function withHeader(batch: Buffer, change: (buf: Buffer) => void, keepCrc = false): Buffer {
  const copy = Buffer.from(batch);
  change(copy);
  if (!keepCrc) writeBatchCrc(copy);
  return copy;
}

/** The headers of the batches back to back in buf. */
export function batchHeaders(buf: Buffer): BatchHeader[] {
  const headers: BatchHeader[] = [];
  for (let at = 0; at < buf.length;) {
    const h = readBatchHeader(buf, at);
    headers.push(h);
    at += h.sizeBytes;
  }
  return headers;
}

/** Every offset held by the batches in buf, in order. */
export function offsetsIn(buf: Buffer): number[] {
  return batchHeaders(buf).flatMap((h) =>
    Array.from({ length: h.lastOffsetDelta + 1 }, (_, i) => h.baseOffset + i),
  );
}
