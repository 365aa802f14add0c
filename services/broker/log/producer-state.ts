/**
 * Idempotent-producer state of one partition: for each producer id, its epoch and its last five
 * batches (first/last sequence, first/last offset). Pure in-memory logic; the snapshot file format
 * lives in producer-snapshot.ts, rebuilding after a restart in log-loader.ts.
 *
 * Rules for a batch with producerId >= 0 (Kafka's, see ProducerStateManager / ProducerAppendInfo):
 *   - epoch < known epoch                               -> INVALID_PRODUCER_EPOCH (fenced)
 *   - same epoch, same first and last sequence as one of the last 5 batches
 *                                                       -> duplicate: the original offsets
 *   - same epoch, firstSeq != lastSeq + 1 (2^31-1 wraps to 0)  -> OUT_OF_ORDER_SEQUENCE
 *   - newer epoch and firstSeq != 0                     -> OUT_OF_ORDER_SEQUENCE
 *   - unknown producer id: any first sequence is accepted. Its state may have been dropped with the
 *     segments that held its batches (retention), and a live producer must keep working then.
 *
 * Transactions (docs/transactions.md): a transactional batch opens the producer's transaction in
 * this partition when none is open (currentTxnFirstOffset = its first offset); a non-transactional
 * batch while one is open -> INVALID_TXN_STATE; a transactional batch of a newer epoch while one is
 * open (the next transaction before this one's marker) -> CONCURRENT_TRANSACTIONS. A control batch (COMMIT/ABORT marker, written by
 * the coordinator) skips the sequence checks, needs epoch >= the known epoch (else
 * INVALID_PRODUCER_EPOCH: a marker of an older epoch is a late duplicate) and closes the open
 * transaction. Markers carry the epoch the coordinator bumped at the transaction's end (KIP-890),
 * so any later data batch of the older epoch is fenced here.
 *
 * Unsequenced transactional batches (firstSeq -1, accepted only from a group coordinator writing
 * a producer's transactional offsets to `__consumer_offsets`: log-append's origin
 * 'group-coordinator') skip the duplicate and sequence checks and are not kept among the last five
 * batches, as Kafka's coordinator-origin appends; the epoch and transaction rules above apply.
 *
 * The first unstable offset (for the LSO) is the smallest first offset of an open transaction, or
 * of a closed one whose marker is not below the high watermark yet (its outcome may still be cut
 * off by a leader change).
 */
import { TideError } from '../../common/errors';
import type { ControlType } from '../../common/records/control';

/** How many of a producer's latest batches are kept for duplicate detection (Kafka: 5). */
export const PRODUCER_BATCHES_KEPT = 5;
export const MAX_SEQUENCE = 0x7fff_ffff;
/** The base sequence of an unsequenced transactional batch (see the header). */
export const NO_SEQUENCE = -1;

export interface ProducerBatch {
  firstSeq: number;
  lastSeq: number;
  firstOffset: number;
  lastOffset: number;
}

export interface ProducerEntry {
  producerId: number;
  epoch: number;
  /** Oldest first, at most PRODUCER_BATCHES_KEPT. */
  batches: ProducerBatch[];
  /** maxTimestamp of the producer's latest batch. */
  lastTimestampMs: number;
  /** First offset of the producer's open transaction in this partition; -1 when none is open. */
  currentTxnFirstOffset: number;
}

/** A transaction closed by a marker. */
export interface CompletedTxn {
  producerId: number;
  firstOffset: number;
  /** The marker's offset. */
  lastOffset: number;
  aborted: boolean;
}

/** What the state needs to know about one batch. */
export interface ProducerBatchInfo {
  producerId: number;
  epoch: number;
  firstSeq: number;
  /** Records in the batch minus one. */
  lastOffsetDelta: number;
  firstOffset: number;
  maxTimestamp: number;
  /** The batch has the transactional bit. */
  transactional?: boolean;
  /** Set for a control batch: the marker it holds. */
  marker?: ControlType;
}

/** The sequence `delta` after `seq`, wrapping from 2^31-1 to 0 as Kafka does. */
export function sequenceAfter(seq: number, delta: number): number {
  return (seq + delta) % (MAX_SEQUENCE + 1);
}

function cloneEntry(entry: ProducerEntry): ProducerEntry {
  return { ...entry, batches: entry.batches.slice() };
}

/** Applies a batch to an entry; returns the transaction a marker closed. */
function record(entry: ProducerEntry, info: ProducerBatchInfo): CompletedTxn | undefined {
  if (info.epoch !== entry.epoch) {
    entry.epoch = info.epoch;
    entry.batches = [];
  }
  entry.lastTimestampMs = info.maxTimestamp;
  if (info.marker !== undefined) {
    const first = entry.currentTxnFirstOffset;
    entry.currentTxnFirstOffset = -1;
    if (first < 0) return undefined;
    return {
      producerId: entry.producerId,
      firstOffset: first,
      lastOffset: info.firstOffset,
      aborted: info.marker === 'ABORT',
    };
  }
  if (info.transactional && entry.currentTxnFirstOffset < 0) entry.currentTxnFirstOffset = info.firstOffset;
  if (info.firstSeq === NO_SEQUENCE) return undefined;
  entry.batches.push({
    firstSeq: info.firstSeq,
    lastSeq: sequenceAfter(info.firstSeq, info.lastOffsetDelta),
    firstOffset: info.firstOffset,
    lastOffset: info.firstOffset + info.lastOffsetDelta,
  });
  if (entry.batches.length > PRODUCER_BATCHES_KEPT) entry.batches.shift();
  return undefined;
}

function newEntry(producerId: number, epoch: number): ProducerEntry {
  return { producerId, epoch, batches: [], lastTimestampMs: -1, currentTxnFirstOffset: -1 };
}

export class ProducerStateManager {
  private readonly entries = new Map<number, ProducerEntry>();
  /**
   * First offset of each producer's open transaction: what the LSO needs, kept beside the entries
   * so that it costs nothing per read when many producers exist (reads compute the LSO).
   */
  private readonly open = new Map<number, number>();
  /** Closed transactions whose marker may still be above the high watermark, marker order. */
  private unreplicated: CompletedTxn[] = [];

  get producerCount(): number {
    return this.entries.size;
  }

  get(producerId: number): ProducerEntry | undefined {
    return this.entries.get(producerId);
  }

  /** All entries, in no particular order (for snapshots). */
  all(): IterableIterator<ProducerEntry> {
    return this.entries.values();
  }

  /** Starts checking one append request. Nothing changes until the returned append commits. */
  begin(context: { topic: string; partition: number }): ProducerAppend {
    return new ProducerAppend(this.entries, context, (entry) => this.put(entry));
  }

  /**
   * Applies a batch, without checks (appends after their check, recovery, truncation). Returns
   * the transaction a marker closed, if any.
   */
  replay(info: ProducerBatchInfo): CompletedTxn | undefined {
    let entry = this.entries.get(info.producerId);
    if (!entry) {
      entry = newEntry(info.producerId, info.epoch);
      this.entries.set(info.producerId, entry);
    }
    if (info.epoch < entry.epoch) return undefined;
    const completed = record(entry, info);
    this.trackOpen(entry);
    if (completed) this.unreplicated.push(completed);
    return completed;
  }

  /**
   * The first offset that is not stable yet given the high watermark `hw`: the smallest first
   * offset of an open transaction or of a closed one whose marker is at or above hw; undefined
   * when there is none (then the LSO is the high watermark). Forgets closed transactions whose
   * marker is below hw (the high watermark only grows, truncation aside, which replays the state).
   */
  firstUnstableOffset(hw: number): number | undefined {
    if (this.unreplicated.length > 0 && this.unreplicated[0].lastOffset < hw)
      this.unreplicated = this.unreplicated.filter((t) => t.lastOffset >= hw);
    let first = this.firstOpenOffset();
    for (const t of this.unreplicated)
      if (first === undefined || t.firstOffset < first) first = t.firstOffset;
    return first;
  }

  /** The smallest first offset of an open transaction; undefined when none is open. */
  firstOpenOffset(): number | undefined {
    let first: number | undefined;
    for (const offset of this.open.values()) if (first === undefined || offset < first) first = offset;
    return first;
  }

  /** The producers with an open transaction in this partition. */
  openTransactions(): Array<{ producerId: number; epoch: number; firstOffset: number }> {
    const out: Array<{ producerId: number; epoch: number; firstOffset: number }> = [];
    for (const [producerId, firstOffset] of this.open)
      out.push({ producerId, epoch: (this.entries.get(producerId) as ProducerEntry).epoch, firstOffset });
    return out.sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** Puts an entry loaded from a snapshot. */
  restore(entry: ProducerEntry): void {
    this.put(cloneEntry(entry));
  }

  /** Sets an entry (a committed append's, or a restored one) and its open-transaction mark. */
  private put(entry: ProducerEntry): void {
    this.entries.set(entry.producerId, entry);
    this.trackOpen(entry);
  }

  private trackOpen(entry: ProducerEntry): void {
    if (entry.currentTxnFirstOffset >= 0) this.open.set(entry.producerId, entry.currentTxnFirstOffset);
    else this.open.delete(entry.producerId);
  }

  /**
   * Forgets producers whose every kept batch lies below `offset` (deleted by retention), except
   * those with an open transaction.
   */
  removeBefore(offset: number): number {
    let removed = 0;
    for (const [id, entry] of this.entries) {
      if (entry.currentTxnFirstOffset >= 0) continue;
      const last = entry.batches[entry.batches.length - 1];
      if (last === undefined || last.lastOffset < offset) {
        this.entries.delete(id);
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    this.entries.clear();
    this.open.clear();
    this.unreplicated = [];
  }
}

/** The result of checking one batch: new, or a retry of a batch already in the log. */
export type SequenceCheck = { duplicate: false } | { duplicate: true; original: ProducerBatch };

/** Checks the batches of one request against the state plus the request's own earlier batches. */
export class ProducerAppend {
  private readonly staged = new Map<number, ProducerEntry>();

  constructor(
    private readonly entries: Map<number, ProducerEntry>,
    private readonly context: { topic: string; partition: number },
    private readonly put: (entry: ProducerEntry) => void,
  ) {}

  /** Throws OUT_OF_ORDER_SEQUENCE or INVALID_PRODUCER_EPOCH; stages the batch when it is new. */
  check(info: ProducerBatchInfo): SequenceCheck {
    const known = this.staged.get(info.producerId) ?? this.entries.get(info.producerId);
    const lastSeq = sequenceAfter(info.firstSeq, info.lastOffsetDelta);
    const fail = (
      code:
        'OUT_OF_ORDER_SEQUENCE' | 'INVALID_PRODUCER_EPOCH' | 'INVALID_TXN_STATE' | 'CONCURRENT_TRANSACTIONS',
      why: string,
    ): never => {
      throw new TideError(
        code,
        `producer ${info.producerId} epoch ${info.epoch} sequences ${info.firstSeq}..${lastSeq}: ${why}`,
        {
          context: { ...this.context, offset: info.firstOffset },
        },
      );
    };
    if (info.marker !== undefined) {
      if (known && info.epoch < known.epoch)
        fail(
          'INVALID_PRODUCER_EPOCH',
          `${info.marker} marker of an older epoch (known epoch ${known.epoch})`,
        );
      this.stage(known, info);
      return { duplicate: false };
    }
    if (known && !info.transactional && known.currentTxnFirstOffset >= 0 && info.epoch === known.epoch)
      fail(
        'INVALID_TXN_STATE',
        `a non-transactional batch while transaction from offset ${known.currentTxnFirstOffset} is open`,
      );
    // The next transaction (a newer epoch) before the marker that ends this one: its records would
    // join the open transaction and share its outcome. The coordinator writes every marker before
    // it lets the next transaction add a partition, so only a producer that skipped that gets here.
    if (known && info.transactional && known.currentTxnFirstOffset >= 0 && info.epoch > known.epoch)
      fail(
        'CONCURRENT_TRANSACTIONS',
        `the transaction of epoch ${known.epoch} from offset ${known.currentTxnFirstOffset} has no marker yet`,
      );
    const unsequenced = info.transactional === true && info.firstSeq === NO_SEQUENCE;
    if (known) {
      if (info.epoch < known.epoch) fail('INVALID_PRODUCER_EPOCH', `fenced by epoch ${known.epoch}`);
      if (unsequenced) {
        // A group coordinator's transactional offsets: no sequence to check (see the header).
      } else if (info.epoch === known.epoch) {
        const original = known.batches.find((b) => b.firstSeq === info.firstSeq && b.lastSeq === lastSeq);
        if (original) return { duplicate: true, original };
        const latest = known.batches[known.batches.length - 1];
        if (latest !== undefined && info.firstSeq !== sequenceAfter(latest.lastSeq, 1)) {
          fail('OUT_OF_ORDER_SEQUENCE', `expected sequence ${sequenceAfter(latest.lastSeq, 1)}`);
        }
      } else if (info.firstSeq !== 0) {
        fail('OUT_OF_ORDER_SEQUENCE', `a new epoch must start at sequence 0 (known epoch ${known.epoch})`);
      }
    }
    this.stage(known, info);
    return { duplicate: false };
  }

  private stage(known: ProducerEntry | undefined, info: ProducerBatchInfo): void {
    const entry = known
      ? this.staged.has(info.producerId)
        ? known
        : cloneEntry(known)
      : newEntry(info.producerId, info.epoch);
    record(entry, info);
    this.staged.set(info.producerId, entry);
  }

  /** Makes the staged batches part of the state. */
  commit(): void {
    for (const entry of this.staged.values()) this.put(entry);
  }
}
