/**
 * The coordinator's durable storage and its view of the data topics, through the normal Tide
 * client (the coordinator is a client of the brokers like any other):
 *
 * - `OffsetsLog`: appends records to a partition of `__consumer_offsets` (acks=all, idempotent
 *   producer, so a retried append is written once), appends a transactional producer's offsets as
 *   one transactional batch under that producer's id and epoch (TxnOffsetCommit), and replays a
 *   partition from its start, batch by batch, control batches (transaction markers) included.
 * - `PartitionOffsets`: a partition's log start offset, high watermark, or first offset at/after a
 *   timestamp (ListOffsets at its leader), for lag and offset resets.
 *
 * Interfaces first, so the group runtime is unit-tested against in-memory fakes.
 */
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import type { ListOffsetsResponse } from '../common/grpc/generated/tide/v1/ListOffsetsResponse';
import type { FetchResponse } from '../common/grpc/generated/tide/v1/FetchResponse';
import type { ProduceResponse } from '../common/grpc/generated/tide/v1/ProduceResponse';
import { TideError } from '../common/errors';
import {
  controlTypeOf,
  decodeBatch,
  encodeBatch,
  isControl,
  isTransactional,
  lastOffsetOf,
  NO_SEQUENCE,
  readBatchHeader,
  splitBatches,
  type ControlType,
} from '../common/records';
import { Cluster, ROUTING_ERRORS, unary } from '../../client/cluster';
import { Producer } from '../../client/producer';
import { retry } from '../../client/retry';
import { OFFSETS_TOPIC } from './offsets-codec';

export interface OffsetsLogRecord {
  key: Buffer;
  /** Null = tombstone. */
  value: Buffer | null;
}

/** The batch a replayed record came in. */
export interface ReplayBatch {
  producerId: number;
  producerEpoch: number;
  /** The transactional attribute bit: a transaction's record (or marker). */
  transactional: boolean;
  /** Set for a control batch: its one record is this COMMIT or ABORT marker, not a record of ours. */
  control?: ControlType;
}

/** The transactional producer whose offsets a TxnOffsetCommit writes. */
export interface TransactionalWriter {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
}

export interface OffsetsLog {
  /** Appends records to one partition, in order; resolves with the last record's offset once acks=all. */
  append(partition: number, records: OffsetsLogRecord[]): Promise<number>;
  /**
   * Appends records to one partition as one transactional batch of `producer` (its id and epoch,
   * the transactional bit, no sequence: the broker's group-coordinator origin), sent with its
   * transactional id so that the leader joins the partition to the producer's open transaction
   * first (the transaction coordinator then writes its marker here). Resolves with the last
   * record's offset once acks=all; rejects with the leader's or the transaction coordinator's
   * error (PRODUCER_FENCED, TRANSACTION_ABORTED, INVALID_PRODUCER_EPOCH...) when the transaction
   * is not open. Optional: only `__consumer_offsets` takes such batches.
   */
  appendTransactional?(
    partition: number,
    producer: TransactionalWriter,
    records: OffsetsLogRecord[],
  ): Promise<number>;
  /**
   * Calls `onRecord` for every record of `partition` from its log start through `throughOffset`
   * (inclusive), in offset order, with the batch it came in (markers included, see ReplayBatch;
   * undefined = a plain record, for in-memory logs of tests).
   */
  replay(
    partition: number,
    throughOffset: number,
    onRecord: (key: Buffer | null, value: Buffer | null, offset: number, batch?: ReplayBatch) => void,
  ): Promise<void>;
}

export interface PartitionBounds {
  logStartOffset: number;
  highWatermark: number;
}

export interface PartitionOffsets {
  bounds(topic: string, partition: number): Promise<PartitionBounds>;
  /** The first offset whose record timestamp is >= timestampMs; the high watermark when none. */
  offsetForTime(topic: string, partition: number, timestampMs: number): Promise<number>;
}

/** How long one replay may take before it fails (and the load is retried). */
export const REPLAY_TIMEOUT_MS = 60_000;
/** Bytes asked for per Fetch of a replay. */
const REPLAY_FETCH_BYTES = 4 * 1024 * 1024;
/** How long a transactional append may wait for the leader (its join and acks=all). */
const TXN_APPEND_TIMEOUT_MS = 30_000;

export class TideOffsetsLog implements OffsetsLog, PartitionOffsets {
  private readonly producer: Producer;
  private readonly logger: Logger;

  constructor(
    private readonly cluster: Cluster,
    private readonly clock: Clock,
    logger: Logger,
    /** The internal topic written and replayed (`__transaction_state` for transactions). */
    private readonly topic: string = OFFSETS_TOPIC,
  ) {
    this.logger = logger.child({ component: topic === OFFSETS_TOPIC ? 'offsets-log' : `log:${topic}` });
    this.producer = new Producer(cluster, { acks: 'all', lingerMs: 0, logger: this.logger });
  }

  async append(partition: number, records: OffsetsLogRecord[]): Promise<number> {
    const result = await this.producer.send(
      this.topic,
      records.map((r) => ({ key: r.key, value: r.value, partition })),
    );
    return result.offsetOf(records.length - 1);
  }

  async appendTransactional(
    partition: number,
    producer: TransactionalWriter,
    records: OffsetsLogRecord[],
  ): Promise<number> {
    const nowMs = this.clock.nowMs();
    const batch = encodeBatch(
      records.map((r) => ({ key: r.key, value: r.value, timestampMs: nowMs })),
      {
        producerId: producer.producerId,
        producerEpoch: producer.producerEpoch,
        baseSequence: NO_SEQUENCE,
        transactional: true,
        nowMs,
      },
    );
    // Retried on retriable errors. A resend after an unanswered attempt may write the batch twice
    // (no sequence to detect it): the same offsets in the same transaction, harmless.
    const response = await retry(
      async () => {
        const address = await this.cluster.leaderAddress(this.topic, partition);
        try {
          return await unary<ProduceResponse>((cb) =>
            this.cluster.pool.broker(address).Produce(
              {
                topic: this.topic,
                partition,
                acks: 'ACKS_ALL',
                timeout_ms: TXN_APPEND_TIMEOUT_MS,
                record_batches: batch,
                transactional_id: producer.transactionalId,
              },
              { deadline: this.cluster.deadline(TXN_APPEND_TIMEOUT_MS + 5_000) },
              cb,
            ),
          );
        } catch (err) {
          const e = err as TideError;
          if (ROUTING_ERRORS.has(e.code)) this.cluster.invalidate(this.topic);
          throw err;
        }
      },
      { attempts: 4 },
      { clock: this.clock },
    );
    return Number(response.last_offset);
  }

  /**
   * Fetches the partition from its log start as stored (whole batches, read_uncommitted: open
   * transactions and markers included) and decodes every batch itself: the client consumer never
   * hands out control batches, and a replay must see the markers.
   */
  async replay(
    partition: number,
    throughOffset: number,
    onRecord: (key: Buffer | null, value: Buffer | null, offset: number, batch: ReplayBatch) => void,
  ): Promise<void> {
    const deadlineMs = this.clock.nowMs() + REPLAY_TIMEOUT_MS;
    let offset = (await this.bounds(this.topic, partition)).logStartOffset;
    while (offset <= throughOffset) {
      if (this.clock.nowMs() > deadlineMs)
        throw new TideError(
          'REQUEST_TIMED_OUT',
          `replaying ${this.topic}/${partition} through offset ${throughOffset} took longer than ${REPLAY_TIMEOUT_MS} ms (at offset ${offset})`,
        );
      let response: FetchResponse;
      try {
        response = await this.fetch(partition, offset);
      } catch (err) {
        if ((err as TideError).code !== 'OFFSET_OUT_OF_RANGE') throw err;
        // The log start moved on (records deleted below it): go on from there.
        const start = (await this.bounds(this.topic, partition)).logStartOffset;
        if (start <= offset) throw err;
        offset = start;
        continue;
      }
      const bytes = Buffer.from(response.record_batches ?? Buffer.alloc(0));
      const { batches, trailingBytes } = splitBatches(bytes);
      let next = offset;
      for (const { at } of batches) {
        const header = readBatchHeader(bytes, at);
        const last = lastOffsetOf(header);
        if (last < offset) continue;
        const control = isControl(header.attributes) ? controlTypeOf(bytes, at) : undefined;
        const batch: ReplayBatch = {
          producerId: header.producerId,
          producerEpoch: header.producerEpoch,
          transactional: isTransactional(header.attributes),
          ...(control ? { control } : {}),
        };
        for (const r of decodeBatch(bytes, at).records) {
          if (r.offset < offset || r.offset > throughOffset) continue;
          onRecord(r.key && Buffer.from(r.key), r.value && Buffer.from(r.value), r.offset, batch);
        }
        next = Math.max(next, last + 1);
      }
      // A gap left by compaction is stepped over by the broker's next offset; a batch cut off at
      // max_bytes is fetched again from its start.
      if (trailingBytes === 0) next = Math.max(next, Number(response.next_offset));
      if (next <= offset) {
        const hw = Number(response.high_watermark);
        if (hw <= offset)
          throw new TideError(
            'REQUEST_TIMED_OUT',
            `replaying ${this.topic}/${partition}: the high watermark ${hw} is not past offset ${offset} yet`,
          );
        throw new TideError(
          'CORRUPT_MESSAGE',
          `replaying ${this.topic}/${partition}: a fetch at offset ${offset} made no progress`,
        );
      }
      offset = next;
    }
  }

  private fetch(partition: number, offset: number): Promise<FetchResponse> {
    return retry(
      async () => {
        const address = await this.cluster.leaderAddress(this.topic, partition);
        try {
          return await unary<FetchResponse>((cb) =>
            this.cluster.pool.broker(address).Fetch(
              {
                topic: this.topic,
                partition,
                offset,
                max_bytes: REPLAY_FETCH_BYTES,
                max_wait_ms: 0,
                min_bytes: 0,
                format: 'RECORD_FORMAT_BATCHES',
                isolation: 'ISOLATION_LEVEL_READ_UNCOMMITTED',
              },
              { deadline: this.cluster.deadline(10_000) },
              cb,
            ),
          );
        } catch (err) {
          if (ROUTING_ERRORS.has((err as TideError).code)) this.cluster.invalidate(this.topic);
          throw err;
        }
      },
      { attempts: 4 },
      { clock: this.clock },
    );
  }

  async bounds(topic: string, partition: number): Promise<PartitionBounds> {
    const r = await this.listOffsets(topic, partition, 'OFFSET_SPEC_LATEST', 0);
    return { logStartOffset: r.log_start_offset, highWatermark: r.high_watermark };
  }

  async offsetForTime(topic: string, partition: number, timestampMs: number): Promise<number> {
    const r = await this.listOffsets(topic, partition, 'OFFSET_SPEC_TIMESTAMP', timestampMs);
    return r.offset >= 0 ? r.offset : r.high_watermark;
  }

  async close(): Promise<void> {
    await this.producer
      .close()
      .catch((err: unknown) => this.logger.warn({ err }, 'closing the offsets producer failed'));
  }

  private listOffsets(
    topic: string,
    partition: number,
    spec: 'OFFSET_SPEC_LATEST' | 'OFFSET_SPEC_TIMESTAMP',
    timestampMs: number,
  ): Promise<ListOffsetsResponse> {
    return retry(
      async () => {
        const address = await this.cluster.leaderAddress(topic, partition);
        try {
          return await unary<ListOffsetsResponse>((cb) =>
            this.cluster.pool
              .broker(address)
              .ListOffsets(
                { topic, partition, spec, timestamp_ms: timestampMs },
                { deadline: this.cluster.deadline(10_000) },
                cb,
              ),
          );
        } catch (err) {
          if (ROUTING_ERRORS.has((err as TideError).code)) this.cluster.invalidate(topic);
          throw err;
        }
      },
      { attempts: 4 },
      { clock: this.clock },
    );
  }
}
