/**
 * What the producer keeps per topic and per partition (the batch pipeline of one partition), and
 * the queued send() calls.
 *
 * A PartitionState is shared by the two halves of the producer: the accumulator owns `open`,
 * `nextOrder`, `lastBatchBytes` and `lingerTimer` (the batch being filled); the sender owns the
 * rest (`ready` onward: the queue of closed batches, what is in flight, retries, sequence numbers
 * and the partition's producer identity).
 */
import type { Timer } from '../../services/common/clock';
import { TideError } from '../../services/common/errors';
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID } from '../../services/common/records';
import type { ProducerBatch, SendSink } from './batch';
import type { ProducerRecord } from '../types';

export interface Identity {
  producerId: number;
  producerEpoch: number;
}

export class PartitionState {
  // The accumulator's part.
  open: ProducerBatch | null = null;
  nextOrder = 0;
  lastBatchBytes = 0;
  lingerTimer: Timer | undefined;
  // The sender's part.
  ready: ProducerBatch[] = [];
  inFlight: ProducerBatch[] = [];
  failedInRound: ProducerBatch[] = [];
  nextSequence = 0;
  recovering = false;
  /** A non-retriable failure broke the sequence; waiting to drain, then a fresh identity. */
  broken = false;
  identityPending = false;

  constructor(
    readonly topic: string,
    readonly partition: number,
    public identity: Identity,
  ) {}
}

export class TopicState {
  readonly partitions: PartitionState[] = [];
  sticky = -1;
  previousSticky = -1;
  constructor(readonly name: string) {}
}

export interface Job {
  topic: string;
  record: ProducerRecord | null;
  records: readonly (ProducerRecord | Buffer)[] | null;
  count: number;
  next: number;
  partition: number | undefined;
  key: Buffer | null;
  sink: SendSink;
  /**
   * A partition the cached metadata lacked, which the producer then refetched metadata for: if the
   * refetched metadata lacks it too, the job fails with UNKNOWN_PARTITION.
   */
  awaitedPartition: number | undefined;
}

export const NO_IDENTITY: Identity = { producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };

/** The error with the partition it happened to, unless it names one already. */
export function withContext(err: TideError, state: PartitionState): TideError {
  if (err.context.topic !== undefined) return err;
  return new TideError(err.code, err.message, {
    cause: err.cause ?? err,
    retriable: err.retriable,
    context: { topic: state.topic, partition: state.partition },
  });
}
