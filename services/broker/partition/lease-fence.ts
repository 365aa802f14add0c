/**
 * Zombie fencing: whether this broker may act as a partition leader right now, judged by its
 * cluster registration (a key under a lease). When the lease lapses the controller moves the
 * leaderships away and another replica starts accepting writes; a paused or partitioned old leader
 * that carried on acknowledging produce requests would then lose them. So a leader refuses produce
 * requests (NOT_LEADER) from the moment its registration is lost — or, cheaper and earlier, from
 * the moment the lease may have expired (the last keep-alive answer plus the TTL has passed),
 * which is checked on every produce request and so also holds right after a SIGSTOP/SIGCONT,
 * before any timer has had a chance to fire.
 */
import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';

export interface LeaseFenceOptions {
  clock: Clock;
  logger: Logger;
  /**
   * Clock time until which the registration's lease is certainly alive (the last keep-alive
   * answer's time + the TTL), when the metadata store can tell. Absent: only lost() fences.
   */
  validUntilMs?: () => number;
}

export class LeaseFence {
  private isLost = false;

  constructor(private readonly options: LeaseFenceOptions) {}

  /** The registration was lost (BrokerRegistration.onLost): stop leading until registered(). */
  lost(reason?: Error): void {
    if (this.isLost) return;
    this.isLost = true;
    this.options.logger.error(
      { err: reason },
      'broker registration lost: refusing produce requests as leader',
    );
  }

  /** The broker is registered again (a new lease): leading is allowed again. */
  registered(): void {
    if (!this.isLost) return;
    this.isLost = false;
    this.options.logger.info('broker registered again: leading allowed');
  }

  /** True while the registration is live: not lost, and its lease not possibly expired. */
  mayLead(): boolean {
    if (this.isLost) return false;
    const validUntilMs = this.options.validUntilMs?.();
    return validUntilMs === undefined || this.options.clock.nowMs() <= validUntilMs;
  }
}
