/**
 * Reuses the producer's large request buffers. On these VMs a fresh 256 KiB allocation costs
 * dozens of page faults when first written (glibc serves it from fresh mmap'd or trimmed memory),
 * which measured as a large share of the producer's CPU; a free list of equally sized buffers
 * keeps the same memory hot. Buffers larger than `bufferBytes` are allocated and dropped as usual.
 */
export class BufferPool {
  private readonly free: Buffer[] = [];

  constructor(
    /** Capacity of every pooled buffer. */
    readonly bufferBytes: number,
    /** Free buffers kept at most (in bytes); the rest are left to the GC. */
    readonly maxFreeBytes: number,
  ) {}

  /** A buffer of at least `size` bytes (its contents are garbage). */
  acquire(size: number): Buffer {
    if (size > this.bufferBytes) return Buffer.allocUnsafeSlow(size);
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.bufferBytes);
  }

  /** Gives a buffer from acquire() back; the caller must not touch it afterwards. */
  release(buf: Buffer): void {
    if (buf.length !== this.bufferBytes || (this.free.length + 1) * this.bufferBytes > this.maxFreeBytes)
      return;
    this.free.push(buf);
  }

  get freeCount(): number {
    return this.free.length;
  }
}
