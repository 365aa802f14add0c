/**
 * What the cleaner does with transactions (Kafka's LogCleaner: aborted records are discarded,
 * markers outlive their transaction's records by delete.retention.ms). The pass only ever sees
 * decided, replicated transactions: its range stops at the last stable offset (../compaction.ts).
 *
 *   - AbortedRanges: a transactional batch of producer P whose base offset lies between the first
 *     offset of one of P's aborted transactions and that transaction's ABORT marker (both from the
 *     segments' .txnindex) belongs to it (a producer has one transaction open per partition at a
 *     time). Its records are neither mapped nor kept; read_committed never showed them.
 *   - MarkerTracker: walking the log from its start in offset order, remembers per producer whether
 *     any batch of its current transaction is still written. A marker whose transaction has nothing
 *     left gets a delete horizon (attribute bit 6, baseTimestamp = now + delete.retention.ms, as a
 *     tombstone's batch) and is dropped by a pass at or after it. A marker whose transaction still
 *     has a batch (even an empty header kept for the producer's sequence) stays: a replay of the
 *     log must find the transaction closed.
 */
import {
  CONTROL_BIT,
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_TIMESTAMP,
  TRANSACTIONAL_BIT,
  writeBatchCrc,
  type BatchHeader,
} from '../../../common/records/layout';

/** Aborted transactions by producer: [first offset, marker offset] pairs, in marker order. */
export class AbortedRanges {
  private readonly byProducer = new Map<number, Array<[number, number]>>();

  constructor(entries: ReadonlyArray<readonly [number, number, number]>) {
    for (const [producerId, first, last] of entries) {
      let list = this.byProducer.get(producerId);
      if (!list) this.byProducer.set(producerId, (list = []));
      list.push([first, last]);
    }
  }

  /** True when the batch's records belong to an aborted transaction (control batches never do). */
  holds(header: Pick<BatchHeader, 'attributes' | 'producerId' | 'baseOffset'>): boolean {
    if ((header.attributes & TRANSACTIONAL_BIT) === 0 || (header.attributes & CONTROL_BIT) !== 0)
      return false;
    const ranges = this.byProducer.get(header.producerId);
    if (!ranges) return false;
    // Few aborted transactions per producer in a cleaned range: a linear scan is enough.
    for (const [first, last] of ranges)
      if (header.baseOffset >= first && header.baseOffset < last) return true;
    return false;
  }
}

/** Attribute bit 6 (batch-filter.ts DELETE_HORIZON_BIT), repeated to avoid an import cycle. */
const HORIZON_BIT = 0x40;

/** A kept or rewritten marker with a horizon: the pass must remember it to come back then. */
export type MarkerDecision =
  | { kind: 'keep'; horizonMs?: number }
  | { kind: 'drop' }
  | { kind: 'rewrite'; bytes: Buffer; horizonMs: number };

export class MarkerTracker {
  /** Producers with a batch of their current transaction written by this pass. */
  private readonly withData = new Set<number>();

  /** After each batch the pass writes (kept, rewritten or emptied). */
  written(attributes: number, producerId: number): void {
    if ((attributes & TRANSACTIONAL_BIT) !== 0 && (attributes & CONTROL_BIT) === 0)
      this.withData.add(producerId);
  }

  /**
   * The fate of a control batch (whole, CRC checked). `retainHeader`: the batch must stay (the last
   * of a cleaned segment); a control batch cannot be emptied, so it is kept whole then.
   */
  decide(
    batch: Buffer,
    header: Pick<BatchHeader, 'attributes' | 'producerId' | 'baseTimestamp'>,
    nowMs: number,
    deleteRetentionMs: number,
    retainHeader: boolean,
  ): MarkerDecision {
    const hadData = this.withData.delete(header.producerId);
    if (hadData) return { kind: 'keep' };
    if ((header.attributes & HORIZON_BIT) !== 0) {
      if (nowMs >= header.baseTimestamp && !retainHeader) return { kind: 'drop' };
      return { kind: 'keep', horizonMs: header.baseTimestamp };
    }
    const horizonMs = nowMs + deleteRetentionMs;
    const bytes = Buffer.from(batch);
    bytes.writeInt16BE(header.attributes | HORIZON_BIT, OFFSET_ATTRIBUTES);
    bytes.writeBigInt64BE(BigInt(horizonMs), OFFSET_BASE_TIMESTAMP);
    writeBatchCrc(bytes, 0, bytes.length);
    return { kind: 'rewrite', bytes, horizonMs };
  }
}
