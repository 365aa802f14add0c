/**
 * Punctuation schedules of one task, as Kafka Streams runs them: a stream-time schedule first
 * fires on the first record (aligned to 0); a wall-clock schedule `interval` after it was made.
 * When time jumps over several intervals the callback fires once and the next boundary after the
 * current time is scheduled (missed intervals are skipped, not replayed).
 */
import { StreamsError } from '../errors';
import type { Cancellable, PunctuationType } from '../processor';

interface Schedule {
  intervalMs: number;
  nextMs: number;
  callback: (timestamp: number) => void;
  cancelled: boolean;
  /** Runs the callback with the context of the node that scheduled it; `timestamp` is when it fired. */
  run: (callback: () => void, timestamp: number) => void;
}

export class PunctuationQueue {
  private readonly schedules: Schedule[] = [];

  add(
    intervalMs: number,
    firstMs: number,
    callback: (timestamp: number) => void,
    run: (callback: () => void, timestamp: number) => void,
  ): Cancellable {
    const s: Schedule = { intervalMs, nextMs: firstMs, callback, cancelled: false, run };
    this.schedules.push(s);
    return {
      cancel: () => {
        s.cancelled = true;
      },
    };
  }

  /** Fires every schedule due at `now`; returns how many fired. */
  fire(now: number): number {
    let fired = 0;
    for (const s of [...this.schedules]) {
      if (s.cancelled || now < s.nextMs) continue;
      const scheduled = s.nextMs;
      s.nextMs = scheduled + s.intervalMs;
      if (now >= s.nextMs) s.nextMs = now - ((now - scheduled) % s.intervalMs) + s.intervalMs;
      s.run(() => s.callback(now), now);
      fired++;
    }
    for (let i = this.schedules.length - 1; i >= 0; i--)
      if (this.schedules[i].cancelled) this.schedules.splice(i, 1);
    return fired;
  }
}

export function checkInterval(intervalMs: number, type: PunctuationType): void {
  if (!Number.isInteger(intervalMs) || intervalMs < 1) {
    throw new StreamsError(
      'STATE',
      `a ${type} punctuation interval must be a whole number of ms >= 1, got ${intervalMs}`,
    );
  }
}
