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
import type { BatchBuilder } from '../services/common/records';
import type { TideError } from '../services/common/errors';
import type { BatchMetadata, RecordMetadata } from './types';
import type { InFlightRequest } from './produce-stream';

/** Collects the results of one send() / sendBatch() call and settles its promise once. */
export class SendSink {
  private remaining: number;
  private done = false;
  readonly partitions: Int32Array | null;
  readonly offsets: Float64Array | null;
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
    this.partitions = single ? null : new Int32Array(count);
    this.offsets = single ? null : new Float64Array(count);
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
      const partitions = this.partitions as Int32Array;
      const offsets = this.offsets as Float64Array;
      const end = callStart + n;
      partitions.fill(partition, callStart, end);
      if (firstOffset < 0) offsets.fill(-1, callStart, end);
      else for (let i = callStart, o = firstOffset; i < end; i++, o++) offsets[i] = o;
    }
    this.remaining -= n;
    if (this.remaining === 0) this.finish();
  }

  fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
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
      this.resolveBatch!({
        topic: this.topic,
        count: this.count,
        partitions: this.partitions!,
        offsets: this.offsets!,
      });
    }
  }
}

export class ProducerBatch implements InFlightRequest {
  builder: BatchBuilder | null;
  /** Final bytes, set when the batch is built (then `builder` is null). */
  bytes: Buffer | null = null;
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

  /** The batch was written at `baseOffset` (-1 when unknown, acks none). */
  settle(partition: number, baseOffset: number, logAppendTimeMs: number): void {
    for (let i = 0; i < this.segSinks.length; i++) {
      const first = baseOffset < 0 ? -1 : baseOffset + this.segBatchStart[i];
      this.segSinks[i].complete(partition, this.segCallStart[i], first, this.segCount[i], logAppendTimeMs);
    }
    this.release();
  }

  fail(err: TideError): void {
    for (let i = 0; i < this.segSinks.length; i++) this.segSinks[i].fail(err);
    this.release();
  }

  private release(): void {
    this.segSinks = [];
    this.builder = null;
    this.bytes = null;
  }
}

/** Kafka's DefaultRecordBatch.incrementSequence: sequences wrap from 2^31-1 to 0. */
export function incrementSequence(sequence: number, increment: number): number {
  const max = 0x7fffffff;
  if (sequence > max - increment) return increment - (max - sequence) - 1;
  return sequence + increment;
}
