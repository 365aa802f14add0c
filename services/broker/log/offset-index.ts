/**
 * Sparse offset index of one segment: `<baseOffset:20 digits>.index`.
 *
 * On disk: entries back to back, no header, big-endian:
 *
 *   offset  size  field
 *   0       4     relativeOffset  u32   batch baseOffset - segment baseOffset
 *   4       4     position        u32   byte position of that batch in the segment's .log file
 *
 * Both fields strictly increase from entry to entry. An entry is added for the first batch that
 * starts at least indexIntervalBytes after the previous entry's position (position 0 is the implicit
 * first entry and is not stored), so a lookup lands at most about indexIntervalBytes before the
 * batch it looks for. Golden example (segment base 100, batches at offsets 105 and 230):
 *
 *   00 00 00 05  00 00 10 00   (105 -> position 4096)
 *   00 00 00 82  00 00 20 10   (230 -> position 8208)
 *
 * In memory the entries are held in exactly this form in a growable buffer (segment-index.ts, the
 * base it shares with the time index): writing the file is one write of the used bytes. The index of a rolled segment is written when it is rolled; the active
 * segment's index only at close (after a crash it is rebuilt by scanning, see log-loader.ts).
 */
import { assert } from '../../common/assert';
import { MAX_U32 } from './config';
import { SegmentIndex } from './segment-index';

export const OFFSET_INDEX_ENTRY_BYTES = 8;
const INITIAL_CAPACITY_ENTRIES = 64;

export interface OffsetPosition {
  /** Absolute offset. */
  offset: number;
  position: number;
}

export class OffsetIndex extends SegmentIndex<OffsetPosition> {
  constructor(baseOffset: number) {
    super(baseOffset, OFFSET_INDEX_ENTRY_BYTES, INITIAL_CAPACITY_ENTRIES);
  }

  /**
   * Parses an index file's bytes, checking that it is sane for a segment whose .log file has
   * `logSizeBytes` bytes: whole entries, both fields strictly increasing, positions inside the file.
   * Returns the index, or why it is unusable (the caller rebuilds it by scanning).
   */
  static fromBytes(baseOffset: number, bytes: Buffer, logSizeBytes: number): OffsetIndex | string {
    const size = SegmentIndex.fileSizeProblem(bytes, OFFSET_INDEX_ENTRY_BYTES);
    if (size) return size;
    let lastRelative = 0;
    let lastPosition = 0;
    for (let at = 0; at < bytes.length; at += OFFSET_INDEX_ENTRY_BYTES) {
      const relative = bytes.readUInt32BE(at);
      const position = bytes.readUInt32BE(at + 4);
      if (at > 0 && relative <= lastRelative)
        return `relative offsets not increasing at entry ${at / OFFSET_INDEX_ENTRY_BYTES}`;
      if (position <= lastPosition)
        return `positions not increasing at entry ${at / OFFSET_INDEX_ENTRY_BYTES}`;
      if (position >= logSizeBytes) return `position ${position} beyond the log file (${logSizeBytes} bytes)`;
      lastRelative = relative;
      lastPosition = position;
    }
    return new OffsetIndex(baseOffset).adopt(bytes);
  }

  /** Adds an entry; offsets and positions must increase (a bug otherwise). */
  append(offset: number, position: number): void {
    const relative = this.relative(offset);
    assert(position > 0 && position <= MAX_U32, `index position ${position} out of range`);
    if (this.count > 0) {
      const last = this.entry(this.count - 1);
      assert(
        offset > last.offset && position > last.position,
        `index entry ${offset}@${position} after ${last.offset}@${last.position}`,
      );
    }
    const at = this.nextEntryAt();
    this.buf.writeUInt32BE(relative, at);
    this.buf.writeUInt32BE(position, at + 4);
    this.count++;
  }

  entry(i: number): OffsetPosition {
    const at = i * OFFSET_INDEX_ENTRY_BYTES;
    return { offset: this.baseOffset + this.buf.readUInt32BE(at), position: this.buf.readUInt32BE(at + 4) };
  }

  /** The last entry with offset <= `offset`; the segment start when there is none. */
  lookup(offset: number): OffsetPosition {
    const i = this.lastIndexBelow(offset - this.baseOffset + 1);
    return i < 0 ? { offset: this.baseOffset, position: 0 } : this.entry(i);
  }

  /** Drops every entry whose offset is >= `offset`. */
  truncateToOffset(offset: number): void {
    this.count = this.lastIndexBelow(offset - this.baseOffset) + 1;
  }

  /** Drops every entry whose position is >= `position`. */
  truncateToPosition(position: number): void {
    while (
      this.count > 0 &&
      this.buf.readUInt32BE((this.count - 1) * OFFSET_INDEX_ENTRY_BYTES + 4) >= position
    )
      this.count--;
  }

  /** Relative offset of entry i: the search key. */
  protected keyAt(i: number): number {
    return this.buf.readUInt32BE(i * OFFSET_INDEX_ENTRY_BYTES);
  }
}
