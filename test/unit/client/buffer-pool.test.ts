import { BufferPool } from '../../../client/net/buffer-pool';

const MiB = 1024 * 1024;

describe('BufferPool', () => {
  it('serves each size from the smallest class that fits, and reuses released buffers of that class', () => {
    const pool = new BufferPool(MiB + 4096, 16 * MiB);
    const small = pool.acquire(10_000);
    expect(small.length).toBe(16 * 1024);
    const medium = pool.acquire(40_000);
    expect(medium.length).toBe(64 * 1024);
    const large = pool.acquire(MiB + 100); // a full batch with its request's fields
    expect(large.length).toBe(MiB + 4096);
    expect(pool.acquire(MiB).length).toBe(MiB);

    pool.release(small);
    pool.release(medium);
    pool.release(large);
    expect(pool.freeCount).toBe(3);
    expect(pool.acquire(16 * 1024)).toBe(small);
    expect(pool.acquire(33 * 1024)).toBe(medium);
    expect(pool.acquire(MiB + 1)).toBe(large);
    expect(pool.freeCount).toBe(0);
  });

  it('takes tiny sizes from the shared slab and oversized ones fresh, and pools neither', () => {
    const pool = new BufferPool(MiB, 16 * MiB);
    const tiny = pool.acquire(200);
    expect(tiny.length).toBe(200);
    const oversized = pool.acquire(2 * MiB);
    expect(oversized.length).toBe(2 * MiB);
    pool.release(tiny);
    pool.release(oversized);
    pool.release(Buffer.alloc(20_000)); // not a class size: not from this pool
    expect(pool.freeCount).toBe(0);
  });

  it('keeps at most maxFreeBytes of free buffers over all classes', () => {
    const pool = new BufferPool(MiB, MiB + 64 * 1024);
    const buffers = [pool.acquire(MiB), pool.acquire(MiB), pool.acquire(50_000), pool.acquire(50_000)];
    for (const b of buffers) pool.release(b);
    // 1 MiB + 64 KiB fits; the second 1 MiB and the second 64 KiB would pass the bound.
    expect(pool.freeCount).toBe(2);
    expect(pool.acquire(MiB)).toBe(buffers[0]);
    expect(pool.acquire(50_000)).toBe(buffers[2]);
  });

  it('a producer of one batch size per partition reuses its buffers instead of allocating per batch', () => {
    const pool = new BufferPool(MiB + 4096, 16 * MiB);
    const first = Array.from({ length: 100 }, () => pool.acquire(12_000));
    for (const b of first) pool.release(b);
    const again = Array.from({ length: 100 }, () => pool.acquire(12_000));
    expect(new Set(again)).toEqual(new Set(first));
  });
});
