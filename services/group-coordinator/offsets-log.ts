/**
 * The coordinator's durable storage and its view of the data topics, through the normal Tide
 * client (the coordinator is a client of the brokers like any other):
 *
 * - `OffsetsLog`: appends records to a partition of `__consumer_offsets` (acks=all, idempotent
 *   producer, so a retried append is written once) and replays a partition from its start.
 * - `PartitionOffsets`: a partition's log start offset, high watermark, or first offset at/after a
 *   timestamp (ListOffsets at its leader), for lag and offset resets.
 *
 * Interfaces first, so the group runtime is unit-tested against in-memory fakes.
 */
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import type { ListOffsetsResponse } from '../common/grpc/generated/tide/v1/ListOffsetsResponse';
import { TideError } from '../common/errors';
import { Cluster, ROUTING_ERRORS, unary } from '../../client/cluster';
import { Consumer } from '../../client/consumer';
import { Producer } from '../../client/producer';
import { retry } from '../../client/retry';
import { OFFSETS_TOPIC } from './offsets-codec';

export interface OffsetsLogRecord {
  key: Buffer;
  /** Null = tombstone. */
  value: Buffer | null;
}

export interface OffsetsLog {
  /** Appends records to one partition, in order; resolves with the last record's offset once acks=all. */
  append(partition: number, records: OffsetsLogRecord[]): Promise<number>;
  /**
   * Calls `onRecord` for every record of `partition` from its log start through `throughOffset`
   * (inclusive), in offset order.
   */
  replay(
    partition: number,
    throughOffset: number,
    onRecord: (key: Buffer | null, value: Buffer | null, offset: number) => void,
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

  async replay(
    partition: number,
    throughOffset: number,
    onRecord: (key: Buffer | null, value: Buffer | null, offset: number) => void,
  ): Promise<void> {
    const consumer = new Consumer(this.cluster, { autoOffsetReset: 'earliest', logger: this.logger });
    const timer = this.clock.setTimeout(() => void consumer.close(), REPLAY_TIMEOUT_MS);
    let reached = false;
    try {
      consumer.assign([{ topic: this.topic, partition }]);
      await consumer.seekToBeginning();
      if ((consumer.position({ topic: this.topic, partition }) ?? 0) > throughOffset) return;
      for await (const batch of consumer.batches()) {
        for (const r of batch.records) {
          if (r.offset > throughOffset) break;
          onRecord(r.key && Buffer.from(r.key), r.value && Buffer.from(r.value), r.offset);
        }
        if (batch.nextOffset > throughOffset) {
          reached = true;
          break;
        }
      }
      if (!reached)
        throw new TideError(
          'REQUEST_TIMED_OUT',
          `replaying ${this.topic}/${partition} through offset ${throughOffset} took longer than ${REPLAY_TIMEOUT_MS} ms`,
        );
    } finally {
      timer.cancel();
      await consumer.close();
    }
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
