/**
 * acks=all produce requests waiting for the high watermark to pass their last offset (Kafka's
 * delayed-produce purgatory, for one partition). Each waiter completes exactly once: when the HW
 * reaches its required offset (with the outcome the partition decides then), when its timeout
 * passes (REQUEST_TIMED_OUT), or when the partition fails them all (e.g. NOT_LEADER).
 */
import type { Clock, Timer } from '../../common/clock';
import { TideError, type ErrorContext } from '../../common/errors';

interface Waiter {
  /** Completes once the HW is at least this (the batch's last offset + 1). */
  requiredOffset: number;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: Timer;
}

export class AckWaiters {
  private readonly waiters = new Set<Waiter>();

  constructor(
    private readonly clock: Clock,
    private readonly context: ErrorContext,
    /** What REQUEST_TIMED_OUT says (DeleteRecords waits on the low watermark with these waiters). */
    private readonly timeoutMessage = (requiredOffset: number, timeoutMs: number) =>
      `the in-sync replicas did not reach offset ${requiredOffset - 1} within ${timeoutMs} ms`,
  ) {}

  get size(): number {
    return this.waiters.size;
  }

  /** Waits for complete() with an HW >= requiredOffset, up to timeoutMs. */
  wait(requiredOffset: number, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        requiredOffset,
        resolve,
        reject,
        timer: this.clock.setTimeout(() => {
          if (!this.waiters.delete(waiter)) return;
          reject(
            new TideError('REQUEST_TIMED_OUT', this.timeoutMessage(requiredOffset, timeoutMs), {
              context: this.context,
            }),
          );
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /**
   * Completes every waiter whose required offset is at or below hw: with `failure` when given
   * (e.g. NOT_ENOUGH_REPLICAS after the append), else successfully.
   */
  complete(hw: number, failure?: () => TideError): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.requiredOffset > hw) continue;
      this.waiters.delete(waiter);
      waiter.timer.cancel();
      if (failure) waiter.reject(failure());
      else waiter.resolve();
    }
  }

  /** Fails every waiter with the error `make` builds. */
  failAll(make: () => TideError): void {
    for (const waiter of [...this.waiters]) {
      this.waiters.delete(waiter);
      waiter.timer.cancel();
      waiter.reject(make());
    }
  }
}
