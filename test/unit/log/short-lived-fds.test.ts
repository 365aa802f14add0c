/**
 * The storage engine's bound on descriptors it opens for a moment (fs-util.ts withShortLivedFd):
 * a broker with thousands of partitions closes (or reopens) all of them at once, and every one
 * replaces small files; unbounded, that ran past the process's descriptor limit.
 */
import { withShortLivedFd } from '../../../services/broker/log/fs-util';

describe('withShortLivedFd', () => {
  it('runs at most 64 holders at once, hands slots on in arrival order, and frees them on failure', async () => {
    let inUse = 0;
    let peak = 0;
    const order: number[] = [];
    const tasks = Array.from({ length: 500 }, (_, i) =>
      withShortLivedFd(async () => {
        inUse++;
        peak = Math.max(peak, inUse);
        order.push(i);
        await new Promise((r) => setTimeout(r, i % 3));
        inUse--;
        if (i % 7 === 0) throw new Error(`task ${i} failed`);
        return i;
      }),
    );
    const results = await Promise.allSettled(tasks);
    expect(peak).toBe(64);
    expect(order).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(Math.ceil(500 / 7));
    // Every slot came back: one more holder starts at once.
    let started = false;
    await withShortLivedFd(async () => {
      started = true;
    });
    expect(started).toBe(true);
  });
});
