/**
 * Partitions join transactions implicitly (KIP-890 part 2), and a leader appends a transactional
 * batch only into a transaction its coordinator has open (KIP-890 part 1: no hanging transactions).
 *
 * The producer sends its transactional batches with its transactional id and no longer calls
 * AddPartitionsToTxn first. On the producer's first batch here in a transaction — the log has no
 * transaction of that producer id and epoch open — the leader asks the transaction coordinator to
 * add this partition to the transaction (TxnPartitionJoiner: AddPartitionsToTxn, durable at the
 * coordinator before it answers), and appends only once it has. So the coordinator knows every
 * partition that holds records of a transaction before they are in any log, and writes a marker
 * there when the transaction ends, also when the producer dies (timeout abort). A batch of a
 * fenced producer, or of a transaction the coordinator has aborted or already ended, is refused
 * with the coordinator's error (PRODUCER_FENCED, TRANSACTION_ABORTED, INVALID_TXN_STATE...) and
 * written nowhere. Later batches of the same transaction here append at once (the log has it
 * open): one coordinator call per partition per transaction.
 *
 * Order. Appends keep their call order per producer: while a producer's join runs, its later
 * requests here wait behind it (each appends once the one before it has started its append).
 * Other producers are not held up.
 */
import { TideError } from '../../common/errors';
import {
  BATCH_HEADER_BYTES,
  OFFSET_ATTRIBUTES,
  OFFSET_PRODUCER_EPOCH,
  OFFSET_PRODUCER_ID,
  TRANSACTIONAL_BIT,
  batchSizeAt,
} from '../../common/records/layout';

/** What a leader asks the transaction coordinator for one partition. */
export interface TxnJoinRequest {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  topic: string;
  partition: number;
  /** How long the leader may wait for the coordinator (the produce request's timeout). */
  timeoutMs: number;
}

/**
 * The transaction coordinator as a partition leader needs it: resolves once `topic`/`partition`
 * is durably part of the producer's open transaction (or already was); rejects with the
 * coordinator's error otherwise (retriable ones when it could not be reached in time).
 */
export interface TxnPartitionJoiner {
  join(request: TxnJoinRequest): Promise<void>;
}

export interface TxnProducerIdentity {
  producerId: number;
  producerEpoch: number;
}

/**
 * The producer of the transactional batches in `batches` (undefined: none is transactional).
 * Malformed framing is left to the log's validation (undefined here). INVALID_REQUEST when the
 * transactional batches of one request name two producers or epochs.
 */
export function transactionalProducerOf(batches: Buffer): TxnProducerIdentity | undefined {
  let found: TxnProducerIdentity | undefined;
  for (let at = 0; at + BATCH_HEADER_BYTES <= batches.length;) {
    const size = batchSizeAt(batches, at);
    if (size < BATCH_HEADER_BYTES || at + size > batches.length) return found;
    if ((batches.readInt16BE(at + OFFSET_ATTRIBUTES) & TRANSACTIONAL_BIT) !== 0) {
      const producerId = Number(batches.readBigInt64BE(at + OFFSET_PRODUCER_ID));
      const producerEpoch = batches.readInt16BE(at + OFFSET_PRODUCER_EPOCH);
      if (found && (found.producerId !== producerId || found.producerEpoch !== producerEpoch))
        throw new TideError(
          'INVALID_REQUEST',
          `one produce request carries transactional batches of producer ${found.producerId} epoch ${found.producerEpoch} and of producer ${producerId} epoch ${producerEpoch}; send each producer's batches in its own request`,
        );
      found = { producerId, producerEpoch };
    }
    at += size;
  }
  return found;
}

/** The join step of one partition's leader appends (see the file header). */
export class TxnJoins {
  /** Per producer id: settles once the producer's latest waiting append has started. */
  private readonly tails = new Map<number, Promise<void>>();

  constructor(
    private readonly joiner: TxnPartitionJoiner,
    /** Whether the log has a transaction of this producer id open at this epoch. */
    private readonly isOpen: (producerId: number, producerEpoch: number) => boolean,
    private readonly where: { topic: string; partition: number },
  ) {}

  /**
   * Calls `append` — synchronously when nothing has to wait, so call order is kept — after the
   * producer's earlier waiting appends and, when the transaction is not open here yet, once the
   * coordinator has added the partition. Rejects with the join's error without appending.
   */
  run<T>(
    producer: TxnProducerIdentity,
    transactionalId: string,
    timeoutMs: number,
    append: () => Promise<T>,
  ): Promise<T> {
    const { producerId, producerEpoch } = producer;
    const previous = this.tails.get(producerId);
    if (!previous && this.isOpen(producerId, producerEpoch)) return append();
    let started!: () => void;
    const tail = new Promise<void>((resolve) => (started = resolve));
    this.tails.set(producerId, tail);
    const done = () => {
      started();
      if (this.tails.get(producerId) === tail) this.tails.delete(producerId);
    };
    return (async () => {
      let appending: Promise<T>;
      try {
        await previous;
        if (!this.isOpen(producerId, producerEpoch))
          await this.joiner.join({ transactionalId, producerId, producerEpoch, ...this.where, timeoutMs });
        appending = append();
      } finally {
        done();
      }
      return appending;
    })();
  }
}
