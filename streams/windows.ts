/**
 * Window definitions, as Kafka Streams has them. Every window has an explicit grace period: how
 * long after a window's end (in stream time) records for it are still accepted. A window closes
 * when stream time reaches end + grace; later records for it are dropped and counted.
 *
 * - TimeWindows: tumbling (advance = size) or hopping (advance < size); [start, start + size).
 *   Windows are aligned to the epoch: start = ts - (ts % advance) and earlier multiples.
 * - SlidingWindows: the windows [t - timeDifference, t] defined by the records themselves
 *   (end inclusive), plus the right window [t + 1, t + 1 + timeDifference] of each record once a
 *   later record falls in it — Kafka's sliding aggregation semantics.
 * - SessionWindows: per key, records closer than the inactivity gap merge into one session
 *   [first, last] (end inclusive).
 */
import { StreamsError } from './errors';
import type { Window } from './serdes';

function checkMs(what: string, ms: number): void {
  if (!Number.isInteger(ms) || ms < 0) {
    throw new StreamsError('TOPOLOGY', `${what} must be a whole number of ms >= 0, got ${ms}`);
  }
}

export class TimeWindows {
  readonly type = 'time' as const;
  private constructor(
    readonly sizeMs: number,
    readonly advanceMs: number,
    readonly graceMs: number,
  ) {}

  /** Tumbling windows of `sizeMs` accepting records up to `graceMs` after their end. */
  static ofSizeAndGrace(sizeMs: number, graceMs: number): TimeWindows {
    checkMs('window size', sizeMs);
    checkMs('grace', graceMs);
    if (sizeMs === 0) throw new StreamsError('TOPOLOGY', 'window size must be > 0');
    return new TimeWindows(sizeMs, sizeMs, graceMs);
  }

  /** Tumbling windows with no grace: records after a window's end are dropped. */
  static ofSizeWithNoGrace(sizeMs: number): TimeWindows {
    return TimeWindows.ofSizeAndGrace(sizeMs, 0);
  }

  /** Hopping windows: a new window every `advanceMs` (0 < advance <= size). */
  advanceBy(advanceMs: number): TimeWindows {
    checkMs('advance', advanceMs);
    if (advanceMs === 0 || advanceMs > this.sizeMs) {
      throw new StreamsError('TOPOLOGY', `advance must be in (0, size=${this.sizeMs}], got ${advanceMs}`);
    }
    return new TimeWindows(this.sizeMs, advanceMs, this.graceMs);
  }

  /** The windows holding `ts`, earliest first. */
  windowsFor(ts: number): Window[] {
    let start = ts - (((ts % this.advanceMs) + this.advanceMs) % this.advanceMs);
    if (this.advanceMs === this.sizeMs) return start >= 0 ? [{ start, end: start + this.sizeMs }] : []; // tumbling
    const out: Window[] = [];
    const first = ts - this.sizeMs + 1;
    const starts: number[] = [];
    while (start >= first && start >= 0) {
      starts.push(start);
      start -= this.advanceMs;
    }
    for (let i = starts.length - 1; i >= 0; i--) out.push({ start: starts[i], end: starts[i] + this.sizeMs });
    return out;
  }

  /** A window is closed once stream time reaches its (exclusive) end plus grace. */
  isClosed(window: Window, streamTime: number): boolean {
    return window.end + this.graceMs <= streamTime;
  }

  /** The first stream time at which `window` is closed. */
  closesAt(window: Window): number {
    return window.end + this.graceMs;
  }

  get retentionMs(): number {
    return this.sizeMs + this.graceMs;
  }
}

export class SlidingWindows {
  readonly type = 'sliding' as const;
  private constructor(
    readonly timeDifferenceMs: number,
    readonly graceMs: number,
  ) {}

  /** Records at most `timeDifferenceMs` apart share a window. */
  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): SlidingWindows {
    checkMs('time difference', timeDifferenceMs);
    checkMs('grace', graceMs);
    return new SlidingWindows(timeDifferenceMs, graceMs);
  }

  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): SlidingWindows {
    return SlidingWindows.ofTimeDifferenceAndGrace(timeDifferenceMs, 0);
  }

  /** End inclusive: closed once stream time reaches end + grace (Kafka's rule). */
  isClosed(window: Window, streamTime: number): boolean {
    return window.end + this.graceMs <= streamTime;
  }

  closesAt(window: Window): number {
    return window.end + this.graceMs;
  }

  get retentionMs(): number {
    return 2 * this.timeDifferenceMs + this.graceMs + 1;
  }
}

export class SessionWindows {
  readonly type = 'session' as const;
  private constructor(
    readonly inactivityGapMs: number,
    readonly graceMs: number,
  ) {}

  static ofInactivityGapAndGrace(inactivityGapMs: number, graceMs: number): SessionWindows {
    checkMs('inactivity gap', inactivityGapMs);
    checkMs('grace', graceMs);
    return new SessionWindows(inactivityGapMs, graceMs);
  }

  static ofInactivityGapWithNoGrace(inactivityGapMs: number): SessionWindows {
    return SessionWindows.ofInactivityGapAndGrace(inactivityGapMs, 0);
  }

  /** A session (end inclusive) is closed once stream time passes end + grace (Kafka's rule). */
  isClosed(window: Window, streamTime: number): boolean {
    return window.end + this.graceMs < streamTime;
  }

  closesAt(window: Window): number {
    return window.end + this.graceMs + 1;
  }
}

/** Stream–stream join windows: records join when |t1 - t2| <= timeDifference (before/after may differ). */
export class JoinWindows {
  private constructor(
    readonly beforeMs: number,
    readonly afterMs: number,
    readonly graceMs: number,
  ) {}

  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): JoinWindows {
    checkMs('time difference', timeDifferenceMs);
    checkMs('grace', graceMs);
    return new JoinWindows(timeDifferenceMs, timeDifferenceMs, graceMs);
  }

  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): JoinWindows {
    return JoinWindows.ofTimeDifferenceAndGrace(timeDifferenceMs, 0);
  }

  /** Other-side records from at most `ms` before this side's record join. */
  before(ms: number): JoinWindows {
    checkMs('before', ms);
    return new JoinWindows(ms, this.afterMs, this.graceMs);
  }

  /** Other-side records from at most `ms` after this side's record join. */
  after(ms: number): JoinWindows {
    checkMs('after', ms);
    return new JoinWindows(this.beforeMs, ms, this.graceMs);
  }
}
