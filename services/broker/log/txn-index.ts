/**
 * The aborted-transaction index of one segment: `<baseOffset:20 digits>.txnindex`, Kafka's
 * `.txnindex`. One entry per transaction whose ABORT marker lies in the segment, in marker order.
 * A read_committed fetch collects the entries that overlap what it serves (PartitionLog.read).
 *
 * Format: entries back to back, 34 bytes each, big-endian (Kafka's AbortedTxn):
 *
 *   offset  size  field
 *   0       2     version           i16  0
 *   2       8     producerId        i64
 *   10      8     firstOffset       i64  the transaction's first offset in this partition
 *   18      8     lastOffset        i64  the ABORT marker's offset
 *   26      8     lastStableOffset  i64  the partition's first unstable offset once the marker was appended
 *
 * Written whole (atomically) when the segment is finalized (roll, close); the entries of a segment
 * not finalized before a crash are rebuilt by the producer-state replay of recovery
 * (log-loader.ts, restoreProducerState), which also rebuilds entries at or above its start.
 */
import type { AbortedTransaction } from '../../common/records/control';

export const TXN_INDEX_ENTRY_BYTES = 34;
const TXN_INDEX_VERSION = 0;

export interface AbortedTxnEntry {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

export class TxnIndex {
  private list: AbortedTxnEntry[] = [];

  get entryCount(): number {
    return this.list.length;
  }

  entries(): readonly AbortedTxnEntry[] {
    return this.list;
  }

  append(entry: AbortedTxnEntry): void {
    this.list.push({ ...entry });
  }

  /** Drops every entry whose marker is at or above `offset` (truncation, or a replay from there). */
  truncateFrom(offset: number): void {
    this.list = this.list.filter((e) => e.lastOffset < offset);
  }

  /**
   * Adds to `out` the transactions that may hide records in [fetchOffset, upperBoundOffset):
   * their marker is at or after fetchOffset and they started before upperBoundOffset.
   */
  collect(fetchOffset: number, upperBoundOffset: number, out: AbortedTransaction[]): void {
    for (const e of this.list) {
      if (e.lastOffset >= fetchOffset && e.firstOffset < upperBoundOffset)
        out.push({ producerId: e.producerId, firstOffset: e.firstOffset });
    }
  }

  /**
   * The entries of several indexes in marker order, each marker once (a swap merges the indexes of
   * the segments it replaces; a recovery may merge an already merged one with its sources again).
   */
  static merge(indexes: readonly TxnIndex[]): TxnIndex {
    const byMarker = new Map<number, AbortedTxnEntry>();
    for (const index of indexes) for (const e of index.list) byMarker.set(e.lastOffset, e);
    const merged = new TxnIndex();
    merged.list = [...byMarker.values()].sort((a, b) => a.lastOffset - b.lastOffset).map((e) => ({ ...e }));
    return merged;
  }

  toBytes(): Buffer {
    const buf = Buffer.alloc(this.list.length * TXN_INDEX_ENTRY_BYTES);
    let at = 0;
    for (const e of this.list) {
      buf.writeInt16BE(TXN_INDEX_VERSION, at);
      buf.writeBigInt64BE(BigInt(e.producerId), at + 2);
      buf.writeBigInt64BE(BigInt(e.firstOffset), at + 10);
      buf.writeBigInt64BE(BigInt(e.lastOffset), at + 18);
      buf.writeBigInt64BE(BigInt(e.lastStableOffset), at + 26);
      at += TXN_INDEX_ENTRY_BYTES;
    }
    return buf;
  }

  /** Parses a file's bytes, or says why they are not a valid index. */
  static fromBytes(buf: Buffer): TxnIndex | string {
    if (buf.length % TXN_INDEX_ENTRY_BYTES !== 0)
      return `${buf.length} bytes is not a whole number of ${TXN_INDEX_ENTRY_BYTES}-byte entries`;
    const index = new TxnIndex();
    let previous = -1;
    for (let at = 0; at < buf.length; at += TXN_INDEX_ENTRY_BYTES) {
      const version = buf.readInt16BE(at);
      if (version !== TXN_INDEX_VERSION) return `entry at byte ${at}: unknown version ${version}`;
      const entry: AbortedTxnEntry = {
        producerId: Number(buf.readBigInt64BE(at + 2)),
        firstOffset: Number(buf.readBigInt64BE(at + 10)),
        lastOffset: Number(buf.readBigInt64BE(at + 18)),
        lastStableOffset: Number(buf.readBigInt64BE(at + 26)),
      };
      if (entry.firstOffset > entry.lastOffset || entry.lastOffset <= previous)
        return `entry at byte ${at}: offsets ${entry.firstOffset}..${entry.lastOffset} out of order`;
      previous = entry.lastOffset;
      index.list.push(entry);
    }
    return index;
  }
}
