/**
 * What the two sparse indexes of a segment share (Kafka's AbstractIndex): fixed-size entries back
 * to back in a growable buffer that is also the file's exact bytes, entries relative to the
 * segment's base offset (u32), a count of used entries, a binary search over a key that strictly
 * increases from entry to entry, and the checks of a file read back. The subclasses say what an
 * entry holds: offset-index.ts (offset -> file position), time-index.ts (timestamp -> offset).
 */
import { assert } from '../../common/assert';
import { MAX_U32 } from './config';

export abstract class SegmentIndex<Entry> {
  protected buf: Buffer;
  protected count = 0;

  protected constructor(
    readonly baseOffset: number,
    /** Bytes per entry. */
    protected readonly entryBytes: number,
    private readonly initialEntries: number,
  ) {
    this.buf = Buffer.alloc(initialEntries * entryBytes);
  }

  get entryCount(): number {
    return this.count;
  }

  /** The i-th entry, 0 <= i < entryCount. */
  abstract entry(i: number): Entry;

  lastEntry(): Entry | undefined {
    return this.count === 0 ? undefined : this.entry(this.count - 1);
  }

  /** The file's bytes (a view: copy before changing the index again if you keep it). */
  toBytes(): Buffer {
    return this.buf.subarray(0, this.count * this.entryBytes);
  }

  /** The search key of the i-th entry; it strictly increases with i. */
  protected abstract keyAt(i: number): number;

  /** Index of the last entry whose key is < `bound`, or -1. */
  protected lastIndexBelow(bound: number): number {
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keyAt(mid) < bound) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** `offset` relative to the segment's base; asserts that it fits the u32 field. */
  protected relative(offset: number): number {
    const relative = offset - this.baseOffset;
    assert(relative >= 0 && relative <= MAX_U32, `offset ${offset} does not fit segment ${this.baseOffset}`);
    return relative;
  }

  /** Byte position for one more entry, growing the buffer if needed; write it, then `count++`. */
  protected nextEntryAt(): number {
    const at = this.count * this.entryBytes;
    if (at + this.entryBytes > this.buf.length) {
      const bigger = Buffer.alloc(Math.max(this.buf.length * 2, this.initialEntries * this.entryBytes));
      this.buf.copy(bigger, 0, 0, at);
      this.buf = bigger;
    }
    return at;
  }

  /** Takes a copy of a file's bytes whose entries were checked (see `fileSizeProblem`). */
  protected adopt(bytes: Buffer): this {
    this.buf = Buffer.from(bytes);
    this.count = bytes.length / this.entryBytes;
    return this;
  }

  /** Why a file of `bytes` cannot hold whole entries of `entryBytes`, or undefined. */
  protected static fileSizeProblem(bytes: Buffer, entryBytes: number): string | undefined {
    return bytes.length % entryBytes === 0
      ? undefined
      : `size ${bytes.length} is not a multiple of ${entryBytes}`;
  }
}
