/**
 * The cleaner's I/O throttle (Kafka's Throttler): the job reports every byte it reads or writes;
 * once per check interval, if the rate since the last check is above the limit, it sleeps long
 * enough to bring that interval's average down to the limit. Bursts are therefore bounded by one
 * interval's worth of bytes. `now` and `sleep` are injected (the worker sleeps with Atomics.wait;
 * tests use a fake clock).
 */
export const DEFAULT_THROTTLE_CHECK_INTERVAL_MS = 100;

export class Throttler {
  /** Total time slept. */
  throttledMs = 0;
  private periodStartMs: number;
  private observedBytes = 0;

  /** bytesPerSecond <= 0 or Infinity = no limit. */
  constructor(
    private readonly bytesPerSecond: number,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => void,
    private readonly checkIntervalMs = DEFAULT_THROTTLE_CHECK_INTERVAL_MS,
  ) {
    this.periodStartMs = now();
  }

  get limited(): boolean {
    return this.bytesPerSecond > 0 && Number.isFinite(this.bytesPerSecond);
  }

  maybeThrottle(bytes: number): void {
    if (!this.limited) return;
    this.observedBytes += bytes;
    const elapsedMs = this.now() - this.periodStartMs;
    if (elapsedMs < this.checkIntervalMs) return;
    const wantedMs = (this.observedBytes * 1000) / this.bytesPerSecond;
    if (wantedMs > elapsedMs) {
      const sleepMs = Math.round(wantedMs - elapsedMs);
      this.sleep(sleepMs);
      this.throttledMs += sleepMs;
    }
    this.periodStartMs = this.now();
    this.observedBytes = 0;
  }
}
