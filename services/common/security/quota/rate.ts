/**
 * A windowed rate and the delay that brings it back to a bound, after Kafka's quota throttling
 * (KIP-13, KIP-219): usage is recorded in fixed sample windows; the rate is the sum of the kept
 * samples over the time they cover; a caller over the bound waits until the usage, spread at the
 * bound, would have taken the time: delay = total / bound - elapsed since the oldest sample.
 * (Kafka's (observed - bound) / bound × window is the same with the window taken as fixed; it
 * under-waits while the window is still growing, which a caller pushing as fast as it can turns
 * into a rate above its quota.)
 *
 * Unlike Kafka, the covered time starts at the first sample (at least one sample window), not at
 * a full window: a new caller may burst one sample window's worth, not the whole window's.
 */
export interface RateOptions {
  /** Length of one sample, ms. */
  sampleMs: number;
  /** Samples kept; the rate covers up to samples × sampleMs. */
  samples: number;
}

export const DEFAULT_RATE_OPTIONS: RateOptions = { sampleMs: 1000, samples: 11 };

interface Sample {
  startMs: number;
  total: number;
}

export class WindowedRate {
  private readonly samples: Sample[] = [];

  constructor(private readonly options: RateOptions = DEFAULT_RATE_OPTIONS) {
    if (options.sampleMs <= 0 || options.samples < 1) throw new RangeError('bad rate window options');
  }

  record(amount: number, nowMs: number): void {
    this.expire(nowMs);
    const last = this.samples[this.samples.length - 1];
    if (last && nowMs < last.startMs + this.options.sampleMs) {
      last.total += amount;
      return;
    }
    const startMs = nowMs - (nowMs % this.options.sampleMs);
    this.samples.push({ startMs, total: amount });
  }

  /** Units per second over the kept samples. */
  rate(nowMs: number): number {
    this.expire(nowMs);
    const first = this.samples[0];
    if (!first) return 0;
    return (this.total() * 1000) / this.coveredMs(first, nowMs);
  }

  /** How long to hold the caller so that the rate comes back to `bound` units/s; 0 when within it. */
  throttleMs(bound: number, nowMs: number): number {
    this.expire(nowMs);
    const first = this.samples[0];
    if (!first) return 0;
    const neededMs = (this.total() * 1000) / bound;
    if (neededMs <= this.coveredMs(first, nowMs)) return 0;
    return Math.ceil(neededMs - (nowMs - first.startMs));
  }

  /** Time since the oldest kept sample began, at least one sample window. */
  private coveredMs(first: Sample, nowMs: number): number {
    return Math.max(nowMs - first.startMs, this.options.sampleMs);
  }

  private total(): number {
    let sum = 0;
    for (const s of this.samples) sum += s.total;
    return sum;
  }

  private expire(nowMs: number): void {
    const horizon = nowMs - this.options.samples * this.options.sampleMs;
    while (this.samples.length > 0 && this.samples[0]!.startMs + this.options.sampleMs <= horizon) {
      this.samples.shift();
    }
  }
}
