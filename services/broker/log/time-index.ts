/**
 * Time index of one segment: `<baseOffset:20 digits>.timeindex`.
 *
 * On disk: entries back to back, no header, big-endian:
 *
 *   offset  size  field
 *   0       8     timestampMs     i64   the largest batch maxTimestamp seen so far in the segment
 *   8       4     relativeOffset  u32   baseOffset - segment baseOffset of the batch that set it
 *
 * Timestamps strictly increase, relative offsets strictly increase. Meaning of an entry (T, o):
 * every batch of the segment up to and including the batch at o, and up to the position where the
 * entry was added, has maxTimestamp <= T. An entry is considered each time the offset index gains
 * one (every indexIntervalBytes) and added only if the max timestamp grew; when a segment is rolled
 * or closed a last entry is added for its max timestamp, so the last entry of a finished segment
 * holds the segment's largest timestamp. Golden example (base 100; max 1000 set by the batch at
 * 100, later 2000 set by the batch at 230):
 *
 *   00 00 00 00 00 00 03 e8  00 00 00 00
 *   00 00 00 00 00 00 07 d0  00 00 00 82
 *
 * A lookup for time t takes the last entry with T < t: the answer lies after its batch. The buffer,
 * the search and the file checks are shared with the offset index (segment-index.ts).
 */
import { SegmentIndex } from './segment-index';

export const TIME_INDEX_ENTRY_BYTES = 12;
const INITIAL_CAPACITY_ENTRIES = 32;

export interface TimestampOffset {
  timestampMs: number;
  /** Absolute offset. */
  offset: number;
}

export class TimeIndex extends SegmentIndex<TimestampOffset> {
  constructor(baseOffset: number) {
    super(baseOffset, TIME_INDEX_ENTRY_BYTES, INITIAL_CAPACITY_ENTRIES);
  }

  /**
   * Parses a time index file's bytes: whole entries, both fields strictly increasing, offsets below
   * `nextOffsetBound` when it is known. Returns the index or why it is unusable.
   */
  static fromBytes(baseOffset: number, bytes: Buffer, nextOffsetBound?: number): TimeIndex | string {
    const size = SegmentIndex.fileSizeProblem(bytes, TIME_INDEX_ENTRY_BYTES);
    if (size) return size;
    for (let at = 0; at < bytes.length; at += TIME_INDEX_ENTRY_BYTES) {
      const timestampMs = Number(bytes.readBigInt64BE(at));
      const relative = bytes.readUInt32BE(at + 8);
      if (at > 0) {
        if (timestampMs <= Number(bytes.readBigInt64BE(at - TIME_INDEX_ENTRY_BYTES)))
          return `timestamps not increasing at entry ${at / TIME_INDEX_ENTRY_BYTES}`;
        if (relative <= bytes.readUInt32BE(at - TIME_INDEX_ENTRY_BYTES + 8))
          return `offsets not increasing at entry ${at / TIME_INDEX_ENTRY_BYTES}`;
      }
      if (nextOffsetBound !== undefined && baseOffset + relative >= nextOffsetBound)
        return `offset ${baseOffset + relative} beyond the segment`;
    }
    return new TimeIndex(baseOffset).adopt(bytes);
  }

  entry(i: number): TimestampOffset {
    const at = i * TIME_INDEX_ENTRY_BYTES;
    return {
      timestampMs: Number(this.buf.readBigInt64BE(at)),
      offset: this.baseOffset + this.buf.readUInt32BE(at + 8),
    };
  }

  /** Adds (timestampMs, offset) if timestampMs is larger than the last entry's; true if added. */
  maybeAppend(timestampMs: number, offset: number): boolean {
    if (timestampMs < 0) return false;
    const last = this.lastEntry();
    if (last && timestampMs <= last.timestampMs) return false;
    const relative = this.relative(offset);
    if (last && offset <= last.offset) return false;
    const at = this.nextEntryAt();
    this.buf.writeBigInt64BE(BigInt(timestampMs), at);
    this.buf.writeUInt32BE(relative, at + 8);
    this.count++;
    return true;
  }

  /** The last entry whose timestamp is < timestampMs, or undefined. */
  lastEntryBefore(timestampMs: number): TimestampOffset | undefined {
    const found = this.lastIndexBelow(timestampMs);
    return found < 0 ? undefined : this.entry(found);
  }

  /** Drops every entry whose offset is >= `offset`. */
  truncateToOffset(offset: number): void {
    while (this.count > 0 && this.entry(this.count - 1).offset >= offset) this.count--;
  }

  /** Timestamp of entry i: the search key. */
  protected keyAt(i: number): number {
    return Number(this.buf.readBigInt64BE(i * TIME_INDEX_ENTRY_BYTES));
  }
}
