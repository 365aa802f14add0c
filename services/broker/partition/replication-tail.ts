/**
 * The newest batches a leader appended, kept in memory so that followers are served from here
 * instead of the segment files: a follower is answered as soon as the leader has assigned the
 * offsets, while the leader's own write and fsync run (the HW still waits for the leader's
 * durable LEO, so this changes when followers see data, never what is acknowledged).
 *
 * Entries are the producers' request buffers as the log patched them (zero copy), contiguous in
 * offsets. An entry goes once every in-sync follower has fetched past it; the tail never holds
 * more than capBytes plus its newest entry, so a stalled follower costs a bounded amount of memory
 * and reads the files like any follower that is behind. A fetch that does not start exactly at an
 * entry's base offset, or whose budget the first entry exceeds, is not served from here.
 */

interface Entry {
  baseOffset: number;
  endOffset: number;
  bytes: Buffer;
}

/** Bytes a tail holds beyond its newest entry. */
export const REPLICATION_TAIL_CAP_BYTES = 1024 * 1024;

export class ReplicationTail {
  private entries: Entry[] = [];
  private bytes = 0;

  constructor(private readonly capBytes = REPLICATION_TAIL_CAP_BYTES) {}

  get sizeBytes(): number {
    return this.bytes;
  }

  get entryCount(): number {
    return this.entries.length;
  }

  /** Adds the bytes of [baseOffset, endOffset); a gap to the previous entry starts the tail anew. */
  add(bytes: Buffer, baseOffset: number, endOffset: number): void {
    const last = this.entries[this.entries.length - 1];
    if (last && last.endOffset !== baseOffset) this.clear();
    this.entries.push({ baseOffset, endOffset, bytes });
    this.bytes += bytes.length;
    while (this.entries.length > 1 && this.bytes - bytes.length > this.capBytes) this.dropFirst();
  }

  /**
   * The batches from `offset` on, whole entries up to maxBytes (the first entry must fit), or
   * undefined when no entry starts at `offset`.
   */
  read(offset: number, maxBytes: number): Buffer | undefined {
    const first = this.indexOf(offset);
    if (first < 0 || this.entries[first].bytes.length > maxBytes) return undefined;
    let end = first + 1;
    let total = this.entries[first].bytes.length;
    while (end < this.entries.length && total + this.entries[end].bytes.length <= maxBytes) {
      total += this.entries[end].bytes.length;
      end++;
    }
    if (end === first + 1) return this.entries[first].bytes;
    return Buffer.concat(
      this.entries.slice(first, end).map((e) => e.bytes),
      total,
    );
  }

  /** Drops the entries that end at or below `offset` (every follower that counts has them). */
  release(offset: number): void {
    while (this.entries.length > 0 && this.entries[0].endOffset <= offset) this.dropFirst();
  }

  clear(): void {
    this.entries = [];
    this.bytes = 0;
  }

  private dropFirst(): void {
    const entry = this.entries.shift();
    if (entry) this.bytes -= entry.bytes.length;
  }

  /** Index of the entry starting at `offset`, or -1 (entries are few: search from the newest). */
  private indexOf(offset: number): number {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const base = this.entries[i].baseOffset;
      if (base === offset) return i;
      if (base < offset) return -1;
    }
    return -1;
  }
}
