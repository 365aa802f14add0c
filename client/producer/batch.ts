/**
 * The producer's unit of work: one record batch for one partition, and the result sinks of the
 * send() calls whose records it carries.
 *
 * A batch is open (records are appended into its BatchBuilder), then closed (queued to send),
 * then built (sequence number assigned, bytes final: every retry resends the same bytes, so an
 * idempotent broker recognises a duplicate), then in flight, then settled or failed.
 *
 * Result bookkeeping avoids one object per record: a batch keeps run-length segments "records
 * [callStart, callStart+count) of sink S are at positions [batchStart, ...) of this batch" in four
 * parallel arrays. A sendBatch() of keyless records makes one segment per batch.
 */
import type { BatchBuilder } from '../../services/common/records';
import type { TideError } from '../../services/common/errors';
import type { BatchMetadata, RecordMetadata, RecordRange } from '../types';
import type { InFlightRequest } from '../net/produce-stream';
import type { EncodedProduceRequest } from '../net/wire';

/**
 * The result of a sendBatch() call, stored as ranges (typically one per batch the call's records
 * went into), so a call of 1,000 records costs a handful of objects, not 1,000. Per-record typed
 * arrays are built only when first read.
 */
export class BatchResult implements BatchMetadata {
  private partitionsCache: Int32Array | undefined;
  private offsetsCache: Float64Array | undefined;

  constructor(
    readonly topic: string,
    readonly count: number,
    /** Sorted by index; together they cover [0, count). */
    readonly ranges: readonly RecordRange[],
  ) {}

  /** Partition of every input record, index-aligned with the input array. */
  get partitions(): Int32Array {
    if (!this.partitionsCache) {
      const out = new Int32Array(this.count);
      for (const r of this.ranges) out.fill(r.partition, r.index, r.index + r.count);
      this.partitionsCache = out;
    }
    return this.partitionsCache;
  }

  /** Offset of every input record (-1 with acks 'none'), index-aligned with the input array. */
  get offsets(): Float64Array {
    if (!this.offsetsCache) {
      const out = new Float64Array(this.count);
      for (const r of this.ranges) {
        if (r.firstOffset < 0) out.fill(-1, r.index, r.index + r.count);
        else for (let i = 0; i < r.count; i++) out[r.index + i] = r.firstOffset + i;
      }
      this.offsetsCache = out;
    }
    return this.offsetsCache;
  }

  partitionOf(index: number): number {
    return this.rangeOf(index).partition;
  }

  offsetOf(index: number): number {
    const r = this.rangeOf(index);
    return r.firstOffset < 0 ? -1 : r.firstOffset + (index - r.index);
  }

  private rangeOf(index: number): RecordRange {
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.ranges[mid].index <= index) lo = mid;
      else hi = mid - 1;
    }
    const r = this.ranges[lo];
    if (!r || index < r.index || index >= r.index + r.count)
      throw new RangeError(`no record ${index} in a result of ${this.count}`);
    return r;
  }
}

/** Collects the results of one send() / sendBatch() call and settles its promise once. */
export class SendSink {
  private remaining: number;
  private done = false;
  private ranges: RecordRange[] | null;
  /** Single-record calls: where it landed and its timestamp. */
  partition = -1;
  offset = -1;
  timestampMs = 0;

  constructor(
    readonly topic: string,
    readonly count: number,
    readonly single: boolean,
    private readonly resolveSingle: ((value: RecordMetadata) => void) | null,
    private readonly resolveBatch: ((value: BatchMetadata) => void) | null,
    private readonly reject: (err: unknown) => void,
  ) {
    this.remaining = count;
    this.ranges = single ? null : [];
    if (count === 0) this.finish();
  }

  get settled(): boolean {
    return this.done;
  }

  /** `n` records from index `callStart` were written at `firstOffset`.. (-1: offsets unknown). */
  complete(
    partition: number,
    callStart: number,
    firstOffset: number,
    n: number,
    logAppendTimeMs: number,
  ): void {
    if (this.done) return;
    if (this.single) {
      this.partition = partition;
      this.offset = firstOffset;
      if (logAppendTimeMs >= 0) this.timestampMs = logAppendTimeMs;
    } else {
      (this.ranges as RecordRange[]).push({ index: callStart, count: n, partition, firstOffset });
    }
    this.remaining -= n;
    if (this.remaining === 0) this.finish();
  }

  fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
    this.ranges = null;
    this.reject(err);
  }

  private finish(): void {
    this.done = true;
    if (this.single) {
      this.resolveSingle!({
        topic: this.topic,
        partition: this.partition,
        offset: this.offset,
        timestampMs: this.timestampMs,
      });
    } else {
      const ranges = this.ranges as RecordRange[];
      this.ranges = null;
      if (ranges.length > 1) ranges.sort((a, b) => a.index - b.index);
      this.resolveBatch!(new BatchResult(this.topic, this.count, ranges));
    }
  }
}

export class ProducerBatch implements InFlightRequest {
  builder: BatchBuilder | null;
  /** Pooled storage offered to the builder; given back at build (or failure). */
  builderBuffer: Buffer | null = null;
  /** The request with the final batch bytes, set when the batch is built (then `builder` is null). */
  request: EncodedProduceRequest | null = null;
  recordCount = 0;
  baseSequence = -1;
  /** Linger expired (or flush): send as soon as the partition may. */
  eligible = false;
  /** Bytes counted against the producer's maxBufferedBytes until the batch settles. */
  accountedBytes = 0;
  attempts = 0;
  correlationId = 0;
  sentAtMs = 0;
  private segSinks: SendSink[] = [];
  private segCallStart: number[] = [];
  private segBatchStart: number[] = [];
  private segCount: number[] = [];

  constructor(
    builder: BatchBuilder,
    /** Creation order within the partition (retries are re-queued by it). */
    readonly order: number,
    /** Default timestamp of the batch's records. */
    readonly nowMs: number,
  ) {
    this.builder = builder;
  }

  /** Notes that the record just appended (at position recordCount) is record `callIndex` of `sink`. */
  addRecord(sink: SendSink, callIndex: number): void {
    const last = this.segSinks.length - 1;
    if (
      last >= 0 &&
      this.segSinks[last] === sink &&
      this.segCallStart[last] + this.segCount[last] === callIndex
    ) {
      this.segCount[last]++;
    } else {
      this.segSinks.push(sink);
      this.segCallStart.push(callIndex);
      this.segBatchStart.push(this.recordCount);
      this.segCount.push(1);
    }
    this.recordCount++;
  }

  /**
   * The batch was written at `baseOffset` (-1 when unknown, acks none). Returns the request
   * buffer, which nothing references any more (for reuse).
   */
  settle(partition: number, baseOffset: number, logAppendTimeMs: number): Buffer | undefined {
    for (let i = 0; i < this.segSinks.length; i++) {
      const first = baseOffset < 0 ? -1 : baseOffset + this.segBatchStart[i];
      this.segSinks[i].complete(partition, this.segCallStart[i], first, this.segCount[i], logAppendTimeMs);
    }
    return this.release();
  }

  /** Fails every record of the batch; returns the request buffer like settle(). */
  fail(err: TideError): Buffer | undefined {
    for (let i = 0; i < this.segSinks.length; i++) this.segSinks[i].fail(err);
    return this.release();
  }

  private release(): Buffer | undefined {
    const buffer = this.request?.buffer;
    this.segSinks = [];
    this.builder = null;
    this.request = null;
    return buffer;
  }
}

/** Kafka's DefaultRecordBatch.incrementSequence: sequences wrap from 2^31-1 to 0. */
export function incrementSequence(sequence: number, increment: number): number {
  const max = 0x7fffffff;
  if (sequence > max - increment) return increment - (max - sequence) - 1;
  return sequence + increment;
}
