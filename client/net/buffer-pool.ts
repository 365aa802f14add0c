/**
 * Reuses the producer's request and batch buffers. On these VMs a fresh 256 KiB allocation costs
 * dozens of page faults when first written (glibc serves it from fresh mmap'd or trimmed memory),
 * which measured as a large share of the producer's CPU; free lists of equally sized buffers keep
 * the same memory hot.
 *
 * Buffers come in size classes, powers of two from 16 KiB up to `bufferBytes` (the largest class,
 * a full batch with its request's fields): a producer writing to many partitions builds and sends
 * many small batches, and when every one took a buffer of the largest class (the free list soon
 * empty) it paid a fresh allocation per batch and a third of its CPU in allocation and garbage
 * collection. Sizes below half of Node's allocation slab come from the slab (no system call,
 * nothing to pool); sizes above `bufferBytes` are allocated and dropped as usual.
 */
const SLAB_LIMIT_BYTES = Buffer.poolSize >>> 1;
/** The smallest class: Kafka's default batch.size. */
const SMALLEST_CLASS_BYTES = 16 * 1024;

export class BufferPool {
  /** Capacities of the classes, ascending; the last is `bufferBytes`. */
  private readonly classes: number[] = [];
  private readonly free: Buffer[][] = [];
  private freeBytes = 0;

  constructor(
    /** Capacity of the largest class. */
    readonly bufferBytes: number,
    /** Bytes of free buffers kept at most, over all classes; the rest are left to the GC. */
    readonly maxFreeBytes: number,
  ) {
    for (let bytes = SMALLEST_CLASS_BYTES; bytes < bufferBytes; bytes *= 2) this.classes.push(bytes);
    this.classes.push(bufferBytes);
    for (let i = 0; i < this.classes.length; i++) this.free.push([]);
  }

  /** A buffer of at least `size` bytes (its contents are garbage). */
  acquire(size: number): Buffer {
    if (size < SLAB_LIMIT_BYTES) return Buffer.allocUnsafe(size);
    if (size > this.bufferBytes) return Buffer.allocUnsafeSlow(size);
    let i = 0;
    while (this.classes[i] < size) i++;
    const buf = this.free[i].pop();
    if (!buf) return Buffer.allocUnsafeSlow(this.classes[i]);
    this.freeBytes -= buf.length;
    return buf;
  }

  /** Gives a buffer from acquire() back; the caller must not touch it afterwards. */
  release(buf: Buffer): void {
    const i = this.classes.indexOf(buf.length);
    if (i < 0 || this.freeBytes + buf.length > this.maxFreeBytes) return;
    this.free[i].push(buf);
    this.freeBytes += buf.length;
  }

  /** Buffers on the free lists, over all classes. */
  get freeCount(): number {
    return this.free.reduce((n, list) => n + list.length, 0);
  }
}
