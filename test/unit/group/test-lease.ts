/** A coordinator's lease of a test's making, on the test's clock. */
import type { Clock } from '../../../services/common/clock';
import { LeaseFence } from '../../../services/common/lease-fence';
import { silentLogger } from '../../../services/common/logger';

export class TestLease {
  /** Until when the lease is certainly alive; a test moves it as a keep-alive answer would. */
  validUntilMs: number;
  readonly fence: LeaseFence;

  constructor(clock: Clock, ttlMs: number) {
    this.validUntilMs = clock.nowMs() + ttlMs;
    this.fence = new LeaseFence({
      clock,
      logger: silentLogger(),
      validUntilMs: () => this.validUntilMs,
      refuses: 'test writes',
    });
  }
}
