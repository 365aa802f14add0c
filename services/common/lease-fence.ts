/**
 * Zombie fencing by lease time: whether a process may still act on what it holds under a lease in
 * the metadata store (a broker leading partitions, a coordinator owning group shards). When the
 * lease lapses another process takes over; a paused or partitioned old holder that carried on
 * acting (acknowledging produce requests, writing committed offsets) would undo its successor's
 * work. So the holder stops from the moment the lease is known lost — or, cheaper and earlier,
 * from the moment the lease may have expired (the last keep-alive answer plus the TTL has passed).
 * That check reads the clock on every call, so it also holds right after a SIGSTOP/SIGCONT, before
 * any timer has had a chance to fire.
 *
 * Why the time check is sound: etcd renewed the lease before it answered the keep-alive, so it
 * expires it no earlier than TTL after the answer arrived; while `now <= validUntilMs` nobody else
 * can have taken what the lease holds. This assumes the local clock does not run slow against
 * etcd's by a meaningful fraction of the TTL (a rate, not an offset: the two clocks are never
 * compared).
 */
import type { Clock } from './clock';
import type { Logger } from './logger';

export interface LeaseFenceOptions {
  clock: Clock;
  logger: Logger;
  /**
   * Clock time until which the lease is certainly alive (the last keep-alive answer's time + the
   * TTL), when the metadata store can tell. Absent: only lost() fences.
   */
  validUntilMs?: () => number;
  /** What the holder stops doing while fenced, for the log: 'produce requests as leader'. */
  refuses: string;
}

export class LeaseFence {
  private isLost = false;

  constructor(private readonly options: LeaseFenceOptions) {}

  /** The lease was lost: stop acting until registered(). */
  lost(reason?: Error): void {
    if (this.isLost) return;
    this.isLost = true;
    this.options.logger.error({ err: reason }, `lease lost: refusing ${this.options.refuses}`);
  }

  /** The holder registered again under a new live lease: acting is allowed again. */
  registered(): void {
    if (!this.isLost) return;
    this.isLost = false;
    this.options.logger.info(`registered again under a new lease: accepting ${this.options.refuses} again`);
  }

  /** True while the lease is live: not lost, and not possibly expired. */
  mayAct(): boolean {
    if (this.isLost) return false;
    const validUntilMs = this.options.validUntilMs?.();
    return validUntilMs === undefined || this.options.clock.nowMs() <= validUntilMs;
  }

  /** The instant until which the lease is certainly alive, when known (for error messages). */
  validUntilMs(): number | undefined {
    return this.options.validUntilMs?.();
  }
}
