/**
 * Public record and result types of the client (the curated API re-exports them from index.ts).
 */
import type { RecordHeader } from '../services/common/records';

export type { RecordHeader };

/** Bytes as the caller may give them: strings are encoded as UTF-8. */
export type Bytes = Buffer | string;

/** Headers as an ordered list (duplicates allowed, as Kafka) or as an object. */
export type HeadersInput = { key: string; value: Bytes | null }[] | Record<string, Bytes | null>;

/** One record to produce. */
export interface ProducerRecord {
  /** Null/absent: no key (sticky partitioning). A key picks the partition by murmur2, as Kafka. */
  key?: Bytes | null;
  /** Null is a tombstone on compacted topics. */
  value: Bytes | null;
  headers?: HeadersInput;
  /** Create time in ms since the epoch; default: when the record joins a batch. */
  timestampMs?: number;
  /** An explicit partition wins over the key. */
  partition?: number;
}

/** Where one produced record landed. */
export interface RecordMetadata {
  topic: string;
  partition: number;
  /** -1 with acks 'none' (the broker does not answer). */
  offset: number;
  /** The record's create time, or the broker's append time for LogAppendTime topics. */
  timestampMs: number;
}

/** Records [index, index + count) of a call that landed together, at offsets firstOffset.. */
export interface RecordRange {
  index: number;
  count: number;
  partition: number;
  /** -1 with acks 'none'. */
  firstOffset: number;
}

/**
 * Where the records of one `sendBatch` call landed. Stored as ranges (about one per batch), not
 * one object per record; the index-aligned typed arrays are built on first access.
 */
export interface BatchMetadata {
  topic: string;
  count: number;
  /** Sorted by index; together they cover every input record. */
  ranges: readonly RecordRange[];
  /** Partition of each input record. */
  readonly partitions: Int32Array;
  /** Offset of each input record (-1 with acks 'none'). */
  readonly offsets: Float64Array;
  partitionOf(index: number): number;
  offsetOf(index: number): number;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** A consumed record. Buffers are views into the fetched bytes: copy them to keep them long. */
export interface ConsumerRecord {
  topic: string;
  partition: number;
  offset: number;
  timestampMs: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

/**
 * Records of one partition, in offset order, as the batch iterator yields them. Checked in full
 * (CRC and every record's layout) before it is yielded; the record objects are built on the first
 * read of `records`, so a pipeline that counts or forwards batches does not pay for them.
 */
export interface ConsumerBatch {
  readonly topic: string;
  readonly partition: number;
  /** Records as decoded: `{offset, timestampMs, key, value, headers}` (no topic/partition copy). */
  readonly records: {
    offset: number;
    timestampMs: number;
    key: Buffer | null;
    value: Buffer | null;
    headers: RecordHeader[];
  }[];
  /** How many records `records` holds, known without building them. */
  readonly recordCount: number;
  /**
   * The RecordBatch v2 bytes that hold these records, as stored (CRC-checked), to forward or
   * archive as they are. After a seek into the middle of a batch, the first batch also holds
   * records before `records[0]`; control batches between the records are included.
   */
  readonly recordBatches: Buffer;
  /**
   * The same records in order, in arrays of at most `size`, each built as the iteration reaches it
   * and not kept by the batch. Code that finishes with one slice before taking the next keeps only
   * a slice's objects alive rather than a whole fetch's (a 1 MiB fetch of small records is
   * ~17,000 of them), so they die young instead of being promoted: less garbage-collector time
   * per record (Tide Streams processes fetched chunks this way).
   */
  recordSlices(size: number): Iterable<ConsumerBatch['records']>;
  /**
   * Visits the same records in order, `(offset, timestampMs, key, value)` with key and value as
   * views into the fetched bytes, without building a record object each (headers are not read):
   * for code that goes through many records and keeps few of them, which then makes little
   * garbage (Tide Streams restores its stores with it).
   */
  forEachRecord(
    visit: (offset: number, timestampMs: number, key: Buffer | null, value: Buffer | null) => void,
  ): void;
  /** The partition's high watermark when these records were fetched. */
  readonly highWatermark: number;
  /**
   * Where the partition goes on once this batch is consumed (what `position()` will say): past
   * its last batch, so at least past the last record.
   */
  readonly nextOffset: number;
}

export function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
