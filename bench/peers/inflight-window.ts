/**
 * Bounds the records a producer has sent but not seen acknowledged. acquire() returns nothing
 * (no promise, no microtask) while there is room, so a tight publish loop stays cheap; when the
 * window is full it waits until acknowledgements have freed a quarter of it, so the loop resumes
 * in bursts rather than once per ack.
 */
export class InflightWindow {
  private inflight = 0;
  private waiter: { below: number; resolve: () => void } | null = null;
  private drainWaiter: (() => void) | null = null;

  get size(): number {
    return this.inflight;
  }

  /** Takes `n` slots, first waiting while `limit` or more are in flight. */
  acquire(n: number, limit: number): Promise<void> | void {
    if (this.inflight < limit) {
      this.inflight += n;
      return;
    }
    return new Promise<void>((resolve) => {
      this.waiter = {
        below: limit - Math.max(1, Math.floor(limit / 4)),
        resolve: () => {
          this.inflight += n;
          resolve();
        },
      };
    });
  }

  /** Frees `n` slots (acknowledgements arrived). */
  release(n: number): void {
    this.inflight -= n;
    if (this.waiter && this.inflight <= this.waiter.below) {
      const { resolve } = this.waiter;
      this.waiter = null;
      resolve();
    }
    if (this.inflight === 0 && this.drainWaiter) {
      const resolve = this.drainWaiter;
      this.drainWaiter = null;
      resolve();
    }
  }

  /** Resolves once nothing is in flight. */
  drained(): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => (this.drainWaiter = resolve));
  }
}
