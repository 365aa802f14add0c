/**
 * Time as a dependency, so tests drive timers by hand instead of sleeping.
 */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
  /** Calls fn once after delayMs. */
  setTimeout(fn: () => void, delayMs: number): Timer;
  /** Calls fn every intervalMs until cancelled. */
  setInterval(fn: () => void, intervalMs: number): Timer;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  setTimeout(fn, delayMs) {
    const handle = setTimeout(fn, delayMs);
    handle.unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
  setInterval(fn, intervalMs) {
    const handle = setInterval(fn, intervalMs);
    handle.unref?.();
    return { cancel: () => clearInterval(handle) };
  },
};

interface PendingTimer {
  dueMs: number;
  fn: () => void;
  intervalMs?: number;
  cancelled: boolean;
}

/** A clock that moves only when the test calls advance(). */
export class ManualClock implements Clock {
  private current: number;
  private timers: PendingTimer[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.current = startMs;
  }

  nowMs(): number {
    return this.current;
  }

  setTimeout(fn: () => void, delayMs: number): Timer {
    return this.schedule({ dueMs: this.current + delayMs, fn, cancelled: false });
  }

  setInterval(fn: () => void, intervalMs: number): Timer {
    return this.schedule({ dueMs: this.current + intervalMs, fn, intervalMs, cancelled: false });
  }

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.timers
        .filter((t) => !t.cancelled && t.dueMs <= target)
        .sort((a, b) => a.dueMs - b.dueMs)[0];
      if (!next) break;
      this.current = next.dueMs;
      if (next.intervalMs !== undefined) next.dueMs += Math.max(1, next.intervalMs);
      else next.cancelled = true;
      next.fn();
    }
    this.timers = this.timers.filter((t) => !t.cancelled);
    this.current = target;
  }

  private schedule(timer: PendingTimer): Timer {
    this.timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  }
}
