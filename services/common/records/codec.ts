/**
 * Kafka RecordBatch v2 (magic 2) encoding and decoding. The 61-byte header is described in
 * layout.ts; after it come `recordCount` records, compressed as one block when the attributes say so:
 *
 *   Record =>
 *     length          varint   bytes after this field
 *     attributes      int8     unused, 0
 *     timestampDelta  varlong  record timestamp - baseTimestamp
 *     offsetDelta     varint   record offset - baseOffset (0, 1, 2 ... as the producer writes them)
 *     keyLength       varint   -1 for a null key
 *     key             bytes
 *     valueLength     varint   -1 for a null value
 *     value           bytes
 *     headerCount     varint
 *     Header =>  keyLength varint, key UTF-8 bytes, valueLength varint (-1 = null), value bytes
 *
 * As in Kafka's Java producer, baseTimestamp is the first record's timestamp (later records may
 * carry negative deltas) and maxTimestamp the largest.
 *
 * Decoding validates the CRC (TideError CORRUPT_MESSAGE) and the structure (TideError
 * INVALID_RECORD); decoded keys, values and header values are views into the input (or into the
 * decompressed records), not copies.
 */
import { assert } from '../assert';
import { TideError } from '../errors';
import { compress, decompress } from './compression';
import { batchContentFault, batchFramingFault, batchSizeFault, describeFramingFault } from './framing';
import { checkRecordSection, invalidBatch, readRecordSection } from './record-section';
import {
  BATCH_HEADER_BYTES,
  BatchHeader,
  CompressionCodec,
  COMPRESSION_MASK,
  LOG_OVERHEAD_BYTES,
  MAGIC_V2,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_OFFSET,
  OFFSET_BASE_SEQUENCE,
  OFFSET_BASE_TIMESTAMP,
  OFFSET_BATCH_LENGTH,
  OFFSET_CRC,
  OFFSET_LAST_OFFSET_DELTA,
  OFFSET_MAGIC,
  OFFSET_MAX_TIMESTAMP,
  OFFSET_PARTITION_LEADER_EPOCH,
  OFFSET_PRODUCER_EPOCH,
  OFFSET_PRODUCER_ID,
  OFFSET_RECORD_COUNT,
  OFFSET_RECORDS,
  TIMESTAMP_TYPE_BIT,
  TRANSACTIONAL_BIT,
  compressionOf,
  computeBatchCrc,
  readBatchHeader,
} from './layout';
import { sizeOfVarint, sizeOfVarlong, writeInt64Number, writeVarint, writeVarlong } from './varint';

/** One record header. Keys are strings (UTF-8 on the wire); values are bytes or null. */
export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

/** A record to encode. Without `timestampMs` the record gets the builder's `nowMs`. */
export interface RecordInput {
  key: Buffer | null;
  value: Buffer | null;
  headers?: RecordHeader[];
  timestampMs?: number;
}

/** A decoded record. Buffers are views into the decoded input; copy them to keep them longer. */
export interface DecodedRecord {
  offset: number;
  timestampMs: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

export type TimestampType = 'CreateTime' | 'LogAppendTime';

/** Header fields given when a batch is built; everything else follows from the records. */
export interface BatchHeaderFields {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /** Default -1; the broker overwrites it. */
  partitionLeaderEpoch?: number;
  /** Default 0; the broker overwrites it. */
  baseOffset?: number;
  transactional?: boolean;
  /** When set, the batch is marked LogAppendTime and this becomes its maxTimestamp. */
  logAppendTimeMs?: number;
}

export interface BatchOptions {
  baseOffset?: number;
  partitionLeaderEpoch?: number;
  compression?: CompressionCodec;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  /** LogAppendTime sets the timestamp-type bit and uses `nowMs` as maxTimestamp. */
  timestampType?: TimestampType;
  transactional?: boolean;
  /** Timestamp for records without one (and the append time for LogAppendTime); default Date.now(). */
  nowMs?: number;
}

export interface BatchBuilderOptions {
  compression?: CompressionCodec;
  /** Timestamp for records without one; default Date.now(), read when first needed. */
  nowMs?: number;
  /** Initial buffer size in bytes (default 16 KiB); the buffer doubles as needed. */
  initialCapacity?: number;
  /**
   * Storage to build into instead of a fresh allocation (a producer's pooled buffer: fresh large
   * buffers page-fault on every batch). The built batch may share it, so the caller must not reuse
   * it until the batch is done with. Grown like any other buffer when too small.
   */
  buffer?: Buffer;
}

const DEFAULT_CAPACITY_BYTES = 16 * 1024;
/**
 * A built batch shares its builder's buffer unless the unused tail is over this many bytes and
 * over a quarter of the batch; then it is copied so it does not pin a mostly empty allocation.
 */
const SLACK_BYTES_MAX = 4096;

/**
 * Builds one batch incrementally, writing each record straight into a growing buffer. Records get
 * offset deltas 0, 1, 2 ... in append order. Single use: `build` ends it.
 */
export class BatchBuilder {
  private buf: Buffer;
  private pos = OFFSET_RECORDS;
  private count = 0;
  private baseTimestamp = 0;
  private maxTimestamp = -1;
  private nowMs: number | undefined;
  private built = false;
  private readonly compression: CompressionCodec;

  constructor(options: BatchBuilderOptions = {}) {
    this.compression = options.compression ?? CompressionCodec.None;
    this.nowMs = options.nowMs;
    this.buf =
      options.buffer && options.buffer.length >= BATCH_HEADER_BYTES
        ? options.buffer
        : Buffer.allocUnsafe(Math.max(options.initialCapacity ?? DEFAULT_CAPACITY_BYTES, BATCH_HEADER_BYTES));
  }

  get recordCount(): number {
    return this.count;
  }

  /** Exact size of the batch so far, header included, before compression. */
  get sizeInBytes(): number {
    return this.pos;
  }

  /** Exact uncompressed size the batch would have after appending `record`. */
  sizeWith(record: RecordInput): number {
    const timestampMs = record.timestampMs ?? this.now();
    const timestampDelta = this.count === 0 ? 0 : timestampMs - this.baseTimestamp;
    const bodySize = recordBodySize(record, this.count, timestampDelta);
    return this.pos + sizeOfVarint(bodySize) + bodySize;
  }

  /** Appends one record. Throws TideError INVALID_RECORD for a non-integer timestamp. */
  append(record: RecordInput): void {
    assert(!this.built, 'BatchBuilder.append after build');
    const timestampMs = record.timestampMs ?? this.now();
    if (!Number.isSafeInteger(timestampMs)) {
      throw new TideError('INVALID_RECORD', `record timestamp ${timestampMs} is not an integer number of ms`);
    }
    if (this.count === 0) {
      this.baseTimestamp = timestampMs;
      this.maxTimestamp = timestampMs;
    } else if (timestampMs > this.maxTimestamp) {
      this.maxTimestamp = timestampMs;
    }
    const timestampDelta = timestampMs - this.baseTimestamp;
    const offsetDelta = this.count;
    const bodySize = recordBodySize(record, offsetDelta, timestampDelta);
    if (this.pos + 5 + bodySize > this.buf.length) this.grow(this.pos + 5 + bodySize);

    const buf = this.buf;
    let p = writeVarint(buf, bodySize, this.pos);
    buf[p++] = 0; // record attributes: unused
    p = writeVarlong(buf, timestampDelta, p);
    p = writeVarint(buf, offsetDelta, p);
    p = writeBytes(buf, record.key, p);
    p = writeBytes(buf, record.value, p);
    const headers = record.headers;
    if (headers === undefined || headers.length === 0) {
      buf[p++] = 0;
    } else {
      p = writeVarint(buf, headers.length, p);
      for (let i = 0; i < headers.length; i++) {
        const header = headers[i];
        p = writeVarint(buf, Buffer.byteLength(header.key, 'utf8'), p);
        p += buf.write(header.key, p, 'utf8');
        p = writeBytes(buf, header.value, p);
      }
    }
    this.pos = p;
    this.count++;
  }

  /**
   * Finishes the batch: compresses the records if asked, fills in the header and the CRC. Needs at
   * least one record. The builder cannot be used afterwards.
   */
  build(header: BatchHeaderFields): Buffer {
    assert(!this.built, 'BatchBuilder.build called twice');
    if (this.count === 0) throw new TideError('INVALID_RECORD', 'a record batch needs at least one record');
    this.built = true;
    let out: Buffer;
    if (this.compression === CompressionCodec.None) {
      const slack = this.buf.length - this.pos;
      out =
        slack > SLACK_BYTES_MAX && slack > this.pos / 4
          ? Buffer.from(this.buf.subarray(0, this.pos))
          : this.buf.subarray(0, this.pos);
    } else {
      const records = compress(this.compression, this.buf.subarray(OFFSET_RECORDS, this.pos));
      out = Buffer.allocUnsafe(OFFSET_RECORDS + records.length);
      out.set(records, OFFSET_RECORDS);
    }
    this.buf = Buffer.alloc(0);

    const logAppendTime = header.logAppendTimeMs !== undefined;
    const attributes =
      (this.compression & COMPRESSION_MASK) |
      (logAppendTime ? TIMESTAMP_TYPE_BIT : 0) |
      (header.transactional ? TRANSACTIONAL_BIT : 0);
    writeInt64Number(out, header.baseOffset ?? 0, OFFSET_BASE_OFFSET);
    out.writeInt32BE(out.length - LOG_OVERHEAD_BYTES, OFFSET_BATCH_LENGTH);
    out.writeInt32BE(header.partitionLeaderEpoch ?? -1, OFFSET_PARTITION_LEADER_EPOCH);
    out.writeInt8(MAGIC_V2, OFFSET_MAGIC);
    out.writeInt16BE(attributes, OFFSET_ATTRIBUTES);
    out.writeInt32BE(this.count - 1, OFFSET_LAST_OFFSET_DELTA);
    writeInt64Number(out, this.baseTimestamp, OFFSET_BASE_TIMESTAMP);
    writeInt64Number(
      out,
      logAppendTime ? (header.logAppendTimeMs as number) : this.maxTimestamp,
      OFFSET_MAX_TIMESTAMP,
    );
    writeInt64Number(out, header.producerId, OFFSET_PRODUCER_ID);
    out.writeInt16BE(header.producerEpoch, OFFSET_PRODUCER_EPOCH);
    out.writeInt32BE(header.baseSequence, OFFSET_BASE_SEQUENCE);
    out.writeInt32BE(this.count, OFFSET_RECORD_COUNT);
    out.writeUInt32BE(computeBatchCrc(out, 0, out.length), OFFSET_CRC);
    return out;
  }

  private now(): number {
    if (this.nowMs === undefined) this.nowMs = Date.now();
    return this.nowMs;
  }

  private grow(needed: number): void {
    let capacity = this.buf.length * 2;
    while (capacity < needed) capacity *= 2;
    const next = Buffer.allocUnsafe(capacity);
    next.set(this.buf.subarray(0, this.pos), 0);
    this.buf = next;
  }
}

function recordBodySize(record: RecordInput, offsetDelta: number, timestampDelta: number): number {
  const key = record.key;
  const value = record.value;
  let size =
    1 +
    sizeOfVarlong(timestampDelta) +
    sizeOfVarint(offsetDelta) +
    (key === null ? 1 : sizeOfVarint(key.length) + key.length) +
    (value === null ? 1 : sizeOfVarint(value.length) + value.length);
  const headers = record.headers;
  if (headers === undefined || headers.length === 0) return size + 1;
  size += sizeOfVarint(headers.length);
  for (let i = 0; i < headers.length; i++) {
    const keyBytes = Buffer.byteLength(headers[i].key, 'utf8');
    const headerValue = headers[i].value;
    size += sizeOfVarint(keyBytes) + keyBytes;
    size += headerValue === null ? 1 : sizeOfVarint(headerValue.length) + headerValue.length;
  }
  return size;
}

function writeBytes(buf: Buffer, bytes: Buffer | null, p: number): number {
  if (bytes === null) {
    buf[p] = 1; // zigzag(-1)
    return p + 1;
  }
  p = writeVarint(buf, bytes.length, p);
  buf.set(bytes, p);
  return p + bytes.length;
}

/** Encodes `records` as one complete batch (same bytes as a BatchBuilder given the same input). */
export function encodeBatch(records: RecordInput[], options: BatchOptions = {}): Buffer {
  const logAppendTime = options.timestampType === 'LogAppendTime';
  const nowMs = options.nowMs ?? (logAppendTime ? Date.now() : undefined);
  const builder = new BatchBuilder({
    compression: options.compression,
    nowMs,
    initialCapacity: estimateBytes(records),
  });
  for (let i = 0; i < records.length; i++) builder.append(records[i]);
  return builder.build({
    baseOffset: options.baseOffset ?? 0,
    partitionLeaderEpoch: options.partitionLeaderEpoch ?? -1,
    producerId: options.producerId ?? NO_PRODUCER_ID,
    producerEpoch: options.producerEpoch ?? NO_PRODUCER_EPOCH,
    baseSequence: options.baseSequence ?? NO_SEQUENCE,
    transactional: options.transactional ?? false,
    logAppendTimeMs: logAppendTime ? nowMs : undefined,
  });
}

function estimateBytes(records: RecordInput[]): number {
  let size = BATCH_HEADER_BYTES;
  for (let i = 0; i < records.length; i++) {
    size += 24 + (records[i].key?.length ?? 0) + (records[i].value?.length ?? 0);
  }
  return size;
}

/**
 * Checks the batch at `at` (bounds, magic, CRC) and decodes its records. Throws TideError
 * CORRUPT_MESSAGE on a CRC mismatch and INVALID_RECORD on anything malformed or truncated.
 * Records of control batches are returned as they are (see `header.attributes & CONTROL_BIT`).
 */
export function decodeBatch(buf: Buffer, at = 0): { header: BatchHeader; records: DecodedRecord[] } {
  const { header, data } = openBatch(buf, at);
  checkRecordSection(data, header, at);
  const records: DecodedRecord[] = [];
  readRecordSection(data, header, -Infinity, records);
  return { header, records };
}

/**
 * Checks the batch at `at` (bounds, magic, CRC, codec) and returns its records section,
 * decompressed, for `checkRecordSection` and `readRecordSection`. Throws like `decodeBatch`.
 */
export function openBatch(
  buf: Buffer,
  at = 0,
  /** The header at `at` when the caller already has it from `iterateBatches` (bounds and magic checked). */
  header: BatchHeader = checkedHeader(buf, at),
): { header: BatchHeader; data: Buffer } {
  const fault = batchContentFault(buf, at, header.sizeBytes, { crc: true, offsets: 'delta' });
  if (fault) {
    throw new TideError(
      fault.code,
      describeFramingFault(fault, `batch at byte ${at} (baseOffset ${header.baseOffset})`),
      {
        context: { offset: header.baseOffset },
      },
    );
  }
  const section = buf.subarray(at + OFFSET_RECORDS, at + header.sizeBytes);
  try {
    return { header, data: decompress(compressionOf(header.attributes), section) };
  } catch (err) {
    if (err instanceof TideError) throw invalidBatch(header, at, err.message, err);
    throw err;
  }
}

/** Reads and bounds-checks the header at `at`; checks magic but not the CRC. */
function checkedHeader(buf: Buffer, at: number): BatchHeader {
  const fault =
    at < 0
      ? ({ kind: 'short', code: 'INVALID_RECORD', available: 0 } as const)
      : batchFramingFault(buf, at, { crc: false, offsets: 'unchecked' });
  if (typeof fault !== 'number') {
    throw new TideError(fault.code, describeFramingFault(fault, `batch at byte ${at}`));
  }
  return readBatchHeader(buf, at);
}

/**
 * Walks back-to-back batches, reading headers only (no CRC check, no record decoding). Throws
 * TideError INVALID_RECORD on a truncated or malformed batch; trim a partial trailing batch first
 * with `splitBatches`.
 */
export function* iterateBatches(buf: Buffer): Generator<{ at: number; header: BatchHeader }> {
  let at = 0;
  while (at < buf.length) {
    const header = checkedHeader(buf, at);
    yield { at, header };
    at += header.sizeBytes;
  }
}

/**
 * Finds the complete batches in `buf` and how many bytes of an incomplete last batch follow them
 * (a fetch cut at maxBytes). Checks sizes only. Throws TideError INVALID_RECORD when a batch length
 * is impossible (smaller than a header).
 */
export function splitBatches(buf: Buffer): {
  batches: { at: number; sizeBytes: number }[];
  trailingBytes: number;
} {
  const batches: { at: number; sizeBytes: number }[] = [];
  let at = 0;
  while (buf.length - at >= LOG_OVERHEAD_BYTES) {
    const sizeBytes = batchSizeFault(buf, at, buf.length - at);
    if (typeof sizeBytes !== 'number') {
      if (sizeBytes.kind === 'overrun') break;
      throw new TideError(sizeBytes.code, describeFramingFault(sizeBytes, `batch at byte ${at}`));
    }
    batches.push({ at, sizeBytes });
    at += sizeBytes;
  }
  return { batches, trailingBytes: buf.length - at };
}

/**
 * Marks the batch at `at` as LogAppendTime with `appendTimeMs` as its maxTimestamp, and rewrites
 * the CRC (what a broker does for topics with message.timestamp.type=LogAppendTime).
 */
export function stampLogAppendTime(batch: Buffer, at: number, appendTimeMs: number): void {
  const attributes = batch.readInt16BE(at + OFFSET_ATTRIBUTES);
  batch.writeInt16BE(attributes | TIMESTAMP_TYPE_BIT, at + OFFSET_ATTRIBUTES);
  writeInt64Number(batch, appendTimeMs, at + OFFSET_MAX_TIMESTAMP);
  batch.writeUInt32BE(computeBatchCrc(batch, at), at + OFFSET_CRC);
}
