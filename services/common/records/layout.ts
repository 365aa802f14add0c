/**
 * Kafka RecordBatch v2 (magic 2) header layout, shared by the client (which builds batches), the
 * broker (which checks them and patches offsets) and the storage engine (which indexes them).
 *
 *   offset  size  field
 *   0       8     baseOffset            set by the broker (outside the CRC)
 *   8       4     batchLength           bytes after this field = total size - 12
 *   12      4     partitionLeaderEpoch  set by the broker (outside the CRC)
 *   16      1     magic                 2
 *   17      4     crc                   CRC32C of bytes [21, end)
 *   21      2     attributes            bits 0-2 compression, 3 timestamp type, 4 transactional, 5 control
 *   23      4     lastOffsetDelta
 *   27      8     baseTimestamp         (Kafka: firstTimestamp)
 *   35      8     maxTimestamp
 *   43      8     producerId            -1 when not idempotent
 *   51      2     producerEpoch
 *   53      4     baseSequence
 *   57      4     recordCount
 *   61      ...   records (compressed as a whole when attributes say so)
 *
 * All integers are big-endian. Offsets within the log are JS numbers: exact up to 2^53.
 */
import { crc32c } from '@node-rs/crc32';

export const BATCH_HEADER_BYTES = 61;
/** Bytes before batchLength's coverage starts: baseOffset + batchLength. */
export const LOG_OVERHEAD_BYTES = 12;
export const MAGIC_V2 = 2;

export const OFFSET_BASE_OFFSET = 0;
export const OFFSET_BATCH_LENGTH = 8;
export const OFFSET_PARTITION_LEADER_EPOCH = 12;
export const OFFSET_MAGIC = 16;
export const OFFSET_CRC = 17;
export const OFFSET_ATTRIBUTES = 21;
export const OFFSET_LAST_OFFSET_DELTA = 23;
export const OFFSET_BASE_TIMESTAMP = 27;
export const OFFSET_MAX_TIMESTAMP = 35;
export const OFFSET_PRODUCER_ID = 43;
export const OFFSET_PRODUCER_EPOCH = 51;
export const OFFSET_BASE_SEQUENCE = 53;
export const OFFSET_RECORD_COUNT = 57;
export const OFFSET_RECORDS = 61;

export const COMPRESSION_MASK = 0x07;
export const TIMESTAMP_TYPE_BIT = 0x08;
export const TRANSACTIONAL_BIT = 0x10;
export const CONTROL_BIT = 0x20;

export enum CompressionCodec {
  None = 0,
  Gzip = 1,
  Snappy = 2,
  Lz4 = 3,
  Zstd = 4,
}

export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;

/** A view of one batch header inside a larger buffer; reads are lazy. */
export interface BatchHeader {
  baseOffset: number;
  /** Whole batch size in bytes, header included. */
  sizeBytes: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

function readInt64(buf: Buffer, at: number): number {
  return Number(buf.readBigInt64BE(at));
}

/** Reads the header of the batch starting at `at`. The caller checks that 61 bytes are there. */
export function readBatchHeader(buf: Buffer, at = 0): BatchHeader {
  return {
    baseOffset: readInt64(buf, at + OFFSET_BASE_OFFSET),
    sizeBytes: buf.readInt32BE(at + OFFSET_BATCH_LENGTH) + LOG_OVERHEAD_BYTES,
    partitionLeaderEpoch: buf.readInt32BE(at + OFFSET_PARTITION_LEADER_EPOCH),
    magic: buf.readInt8(at + OFFSET_MAGIC),
    crc: buf.readUInt32BE(at + OFFSET_CRC),
    attributes: buf.readInt16BE(at + OFFSET_ATTRIBUTES),
    lastOffsetDelta: buf.readInt32BE(at + OFFSET_LAST_OFFSET_DELTA),
    baseTimestamp: readInt64(buf, at + OFFSET_BASE_TIMESTAMP),
    maxTimestamp: readInt64(buf, at + OFFSET_MAX_TIMESTAMP),
    producerId: readInt64(buf, at + OFFSET_PRODUCER_ID),
    producerEpoch: buf.readInt16BE(at + OFFSET_PRODUCER_EPOCH),
    baseSequence: buf.readInt32BE(at + OFFSET_BASE_SEQUENCE),
    recordCount: buf.readInt32BE(at + OFFSET_RECORD_COUNT),
  };
}

/** Size in bytes of the batch starting at `at` (needs 12 readable bytes). */
export function batchSizeAt(buf: Buffer, at = 0): number {
  return buf.readInt32BE(at + OFFSET_BATCH_LENGTH) + LOG_OVERHEAD_BYTES;
}

/** CRC32C over attributes..end, as Kafka computes it. */
export function computeBatchCrc(batch: Buffer, at = 0, sizeBytes = batchSizeAt(batch, at)): number {
  return crc32c(batch.subarray(at + OFFSET_ATTRIBUTES, at + sizeBytes)) >>> 0;
}

/** True when the stored CRC matches the content. */
export function batchCrcIsValid(batch: Buffer, at = 0, sizeBytes = batchSizeAt(batch, at)): boolean {
  return computeBatchCrc(batch, at, sizeBytes) === batch.readUInt32BE(at + OFFSET_CRC);
}

/** Rewrites the CRC after a change inside the covered range (e.g. LogAppendTime). */
export function writeBatchCrc(batch: Buffer, at = 0, sizeBytes = batchSizeAt(batch, at)): void {
  batch.writeUInt32BE(computeBatchCrc(batch, at, sizeBytes), at + OFFSET_CRC);
}

/** Patches the fields the broker owns; both lie outside the CRC. */
export function patchBaseOffset(batch: Buffer, at: number, baseOffset: number): void {
  batch.writeBigInt64BE(BigInt(baseOffset), at + OFFSET_BASE_OFFSET);
}

export function patchPartitionLeaderEpoch(batch: Buffer, at: number, epoch: number): void {
  batch.writeInt32BE(epoch, at + OFFSET_PARTITION_LEADER_EPOCH);
}

export function compressionOf(attributes: number): CompressionCodec {
  return (attributes & COMPRESSION_MASK) as CompressionCodec;
}

export function lastOffsetOf(header: Pick<BatchHeader, 'baseOffset' | 'lastOffsetDelta'>): number {
  return header.baseOffset + header.lastOffsetDelta;
}
