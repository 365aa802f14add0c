/**
 * When a log writer may write a round to the page cache synchronously, on the event loop, instead
 * of through the libuv thread pool.
 *
 * Why: a write to the page cache takes a few microseconds, while its trip through the pool (queue,
 * pool thread, wake-up of the event loop) takes 60 µs on an idle 2-core machine and 250–450 µs on a
 * busy one. A transaction waits for three appends in a row (its records, the coordinator's
 * Prepare record, the marker), a produce with acks=all for one, so that trip is most of their
 * latency (docs/performance.md, "Inline page-cache writes").
 *
 * The risk: a page-cache write blocks when the kernel throttles a writer (dirty pages over the
 * limit, memory pressure), and on the event loop that stalls every partition of the broker. So
 * only small rounds go inline, and each one is timed. `slowWrites` writes slower than
 * `slowWriteMs` among `windowWrites` inline writes in a row send every writer sharing this policy
 * back to the pool for `backoffMs`: a throttled disk costs a few stalled writes per backoff
 * period, not one per append. Scattered slow writes do not: on a busy 2-core machine about 1 in
 * 2,000 inline writes took over 4 ms (the scheduler preempting the thread, a journal commit),
 * while a throttled disk stalls nearly every write. Durable rounds (flush.policy=sync, O_DSYNC)
 * never go inline: they wait for the disk.
 */
import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';

/** Rounds up to this many bytes go inline by default (a 1,000-record batch of 100 B is ~100 KiB). */
export const DEFAULT_INLINE_WRITE_MAX_BYTES = 256 * 1024;
/** An inline write slower than this may have waited for the kernel's write throttling. */
export const DEFAULT_SLOW_INLINE_WRITE_MS = 5;
/** This many slow writes among DEFAULT_SLOW_WINDOW_WRITES inline writes: the kernel throttles writes. */
export const DEFAULT_SLOW_INLINE_WRITES = 3;
export const DEFAULT_SLOW_WINDOW_WRITES = 50;
/** How long writes stay off the event loop once the slow ones switched them off. */
export const DEFAULT_INLINE_WRITE_BACKOFF_MS = 30_000;

export interface InlineWritesOptions {
  clock: Clock;
  logger?: Logger;
  /** Largest round written inline; 0 = never inline. */
  maxBytes?: number;
  /** An inline write slower than this counts as slow. */
  slowWriteMs?: number;
  /** This many slow writes among `windowWrites` inline writes in a row switch inline writes off... */
  slowWrites?: number;
  windowWrites?: number;
  /** ...for this long. */
  backoffMs?: number;
}

/** What an InlineWrites has done, counted from its start (the broker's metrics read it). */
export interface InlineWriteStats {
  /** Writes made on the event loop. */
  inline: number;
  /** Of those, the ones slower than slowWriteMs. */
  slow: number;
  /** Times slow writes switched inline writes off for backoffMs. */
  backoffs: number;
}

/** One per broker, shared by all its logs: a throttled disk is the whole broker's. */
export class InlineWrites {
  readonly maxBytes: number;
  private readonly slowWriteMs: number;
  private readonly slowWrites: number;
  private readonly windowWrites: number;
  private readonly backoffMs: number;
  /** Which inline writes (by count, stats.inline) the recent slow ones were, oldest first. */
  private readonly recentSlow: number[] = [];
  /** Clock time until which every write goes through the pool. */
  private pooledUntilMs = 0;
  readonly stats: InlineWriteStats = { inline: 0, slow: 0, backoffs: 0 };

  constructor(private readonly options: InlineWritesOptions) {
    this.maxBytes = options.maxBytes ?? DEFAULT_INLINE_WRITE_MAX_BYTES;
    this.slowWriteMs = options.slowWriteMs ?? DEFAULT_SLOW_INLINE_WRITE_MS;
    this.slowWrites = options.slowWrites ?? DEFAULT_SLOW_INLINE_WRITES;
    this.windowWrites = options.windowWrites ?? DEFAULT_SLOW_WINDOW_WRITES;
    this.backoffMs = options.backoffMs ?? DEFAULT_INLINE_WRITE_BACKOFF_MS;
  }

  /** Whether a round of `bytes` may be written on the event loop now. */
  allows(bytes: number): boolean {
    return bytes <= this.maxBytes && this.options.clock.nowMs() >= this.pooledUntilMs;
  }

  /** Records how long an inline write took (ms, a monotonic measure). */
  took(ms: number, file: string): void {
    this.stats.inline++;
    if (ms <= this.slowWriteMs) return;
    this.stats.slow++;
    this.recentSlow.push(this.stats.inline);
    if (this.recentSlow.length > this.slowWrites) this.recentSlow.shift();
    if (this.recentSlow.length < this.slowWrites) return;
    if (this.stats.inline - this.recentSlow[0] >= this.windowWrites) return;
    this.recentSlow.length = 0;
    this.stats.backoffs++;
    this.pooledUntilMs = this.options.clock.nowMs() + this.backoffMs;
    this.options.logger?.warn(
      { file, ms: Math.round(ms * 10) / 10, slowWrites: this.slowWrites, backoffMs: this.backoffMs },
      'page-cache writes blocked the event loop (the kernel is throttling writes); log writes go through the thread pool for a while',
    );
  }
}
