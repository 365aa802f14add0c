/**
 * Keeps this broker registered in the cluster. The registration is a key under a lease; when the
 * lease is lost (the metadata store was unreachable for a TTL, or the process was paused past
 * it) the broker stops leading at once (LeaseFence) and registers again under a new lease as soon
 * as the store answers, which lets the controller count it live and lead again.
 */
import type { Clock, Timer } from '../common/clock';
import type { Logger } from '../common/logger';
import type { BrokerInfo, BrokerRegistration, BrokerRegistry } from '../common/cluster/broker-registry';
import type { LeaseFence } from '../common/lease-fence';

const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 5_000;

export class RegistrationKeeper {
  private current: BrokerRegistration | undefined;
  private retryTimer: Timer | undefined;
  private retryMs = RETRY_MIN_MS;
  private stopped = false;

  constructor(
    private readonly deps: {
      registry: BrokerRegistry;
      broker: BrokerInfo;
      fence: LeaseFence;
      clock: Clock;
      logger: Logger;
      /** How long to wait for a previous holder of this id (a crashed predecessor) to lapse. */
      waitForPreviousMs: number;
    },
  ) {}

  /** Registers for the first time; throws when the id is held by another live broker. */
  async start(): Promise<void> {
    this.adopt(
      await this.deps.registry.register(this.deps.broker, { waitForPreviousMs: this.deps.waitForPreviousMs }),
    );
  }

  private adopt(registration: BrokerRegistration): void {
    this.current = registration;
    this.retryMs = RETRY_MIN_MS;
    this.deps.fence.registered();
    registration.onLost((reason) => {
      if (this.stopped || this.current !== registration) return;
      this.current = undefined;
      this.deps.fence.lost(reason);
      this.scheduleRetry();
    });
  }

  private scheduleRetry(): void {
    if (this.stopped) return;
    this.retryTimer = this.deps.clock.setTimeout(() => void this.retry(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  private async retry(): Promise<void> {
    if (this.stopped) return;
    try {
      const registration = await this.deps.registry.register(this.deps.broker, {
        waitForPreviousMs: this.deps.waitForPreviousMs,
      });
      if (this.stopped) {
        await registration.close();
        return;
      }
      this.deps.logger.info(
        { broker: this.deps.broker.id },
        'registered again after losing the registration',
      );
      this.adopt(registration);
    } catch (err) {
      this.deps.logger.warn({ err, retryInMs: this.retryMs }, 'cannot register yet; retrying');
      this.scheduleRetry();
    }
  }

  /** Until when the current registration is certainly alive; 0 while unregistered. */
  validUntilMs(): number {
    return this.current ? (this.current.validUntilMs() ?? Infinity) : 0;
  }

  /** Deregisters (deletes the key, revokes the lease) and stops retrying. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.retryTimer?.cancel();
    await this.current?.close();
    this.current = undefined;
  }
}
