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
 */
import { TideError } from '../../common/errors';

/** How many of a producer's latest batches are kept for duplicate detection (Kafka: 5). */
export const PRODUCER_BATCHES_KEPT = 5;
export const MAX_SEQUENCE = 0x7fff_ffff;

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
}

/** The sequence `delta` after `seq`, wrapping from 2^31-1 to 0 as Kafka does. */
export function sequenceAfter(seq: number, delta: number): number {
  return (seq + delta) % (MAX_SEQUENCE + 1);
}

function cloneEntry(entry: ProducerEntry): ProducerEntry {
  return { ...entry, batches: entry.batches.slice() };
}

function record(entry: ProducerEntry, info: ProducerBatchInfo): void {
  if (info.epoch !== entry.epoch) {
    entry.epoch = info.epoch;
    entry.batches = [];
  }
  entry.batches.push({
    firstSeq: info.firstSeq,
    lastSeq: sequenceAfter(info.firstSeq, info.lastOffsetDelta),
    firstOffset: info.firstOffset,
    lastOffset: info.firstOffset + info.lastOffsetDelta,
  });
  if (entry.batches.length > PRODUCER_BATCHES_KEPT) entry.batches.shift();
  entry.lastTimestampMs = info.maxTimestamp;
}

export class ProducerStateManager {
  private readonly entries = new Map<number, ProducerEntry>();

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
    return new ProducerAppend(this.entries, context);
  }

  /** Applies a batch read back from the log, without checks (recovery and truncation). */
  replay(info: ProducerBatchInfo): void {
    let entry = this.entries.get(info.producerId);
    if (!entry) {
      entry = { producerId: info.producerId, epoch: info.epoch, batches: [], lastTimestampMs: -1 };
      this.entries.set(info.producerId, entry);
    }
    if (info.epoch < entry.epoch) return;
    record(entry, info);
  }

  /** Puts an entry loaded from a snapshot. */
  restore(entry: ProducerEntry): void {
    this.entries.set(entry.producerId, cloneEntry(entry));
  }

  /** Forgets producers whose every kept batch lies below `offset` (deleted by retention). */
  removeBefore(offset: number): number {
    let removed = 0;
    for (const [id, entry] of this.entries) {
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
  ) {}

  /** Throws OUT_OF_ORDER_SEQUENCE or INVALID_PRODUCER_EPOCH; stages the batch when it is new. */
  check(info: ProducerBatchInfo): SequenceCheck {
    const known = this.staged.get(info.producerId) ?? this.entries.get(info.producerId);
    const lastSeq = sequenceAfter(info.firstSeq, info.lastOffsetDelta);
    const fail = (code: 'OUT_OF_ORDER_SEQUENCE' | 'INVALID_PRODUCER_EPOCH', why: string): never => {
      throw new TideError(
        code,
        `producer ${info.producerId} epoch ${info.epoch} sequences ${info.firstSeq}..${lastSeq}: ${why}`,
        {
          context: { ...this.context, offset: info.firstOffset },
        },
      );
    };
    if (known) {
      if (info.epoch < known.epoch) fail('INVALID_PRODUCER_EPOCH', `fenced by epoch ${known.epoch}`);
      if (info.epoch === known.epoch) {
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
    const entry = known
      ? this.staged.has(info.producerId)
        ? known
        : cloneEntry(known)
      : { producerId: info.producerId, epoch: info.epoch, batches: [], lastTimestampMs: -1 };
    record(entry, info);
    this.staged.set(info.producerId, entry);
    return { duplicate: false };
  }

  /** Makes the staged batches part of the state. */
  commit(): void {
    for (const [id, entry] of this.staged) this.entries.set(id, entry);
  }
}
