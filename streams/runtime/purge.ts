/**
 * Repartition purge, as Kafka Streams' (`repartition.purge.interval.ms`): the records of the
 * application's internal topics (`<app>-<name>-repartition`) are read by this application only,
 * so once their offsets are committed they are deleted — Admin.DeleteRecords up to the committed
 * offset of each partition. The runtime reports every successful commit (`committed`); a purge is
 * sent at most once per interval, one at a time, for the partitions whose committed offset moved.
 * Offsets that arrive while a purge is in flight or before the interval has passed are sent when
 * it is due, by a timer: the application may commit nothing more (all input processed), and what
 * it committed last must still be purged. A failed purge is logged and retried after a backoff: a
 * purge only frees disk, so it never fails the application.
 */
import type { DeletedRecords, RecordsToDelete } from '../../client/index';
import type { Clock, Timer } from '../../services/common/clock';
import type { Logger } from '../../services/common/logger';

/** Kafka Streams' default repartition.purge.interval.ms. */
export const DEFAULT_REPARTITION_PURGE_INTERVAL_MS = 30_000;
/** Least wait before a failed purge is retried, doubling per failure up to the maximum. */
const RETRY_BACKOFF_MS = 500;
const MAX_RETRY_BACKOFF_MS = 30_000;

export interface RepartitionPurgerDeps {
  /** The admin client's deleteRecords. */
  deleteRecords(partitions: RecordsToDelete[]): Promise<DeletedRecords[]>;
  /** The application's internal topics (the only ones purged). */
  topics: ReadonlySet<string>;
  /** Least time between two purges; 0 = after every commit. */
  intervalMs: number;
  /** Time and the timers of purges that fall due later. */
  clock: Clock;
  logger: Logger;
}

export class RepartitionPurger {
  /** `topic\0partition` → the newest committed offset not purged yet. */
  private readonly pending = new Map<string, RecordsToDelete>();
  private inFlight: Promise<void> | undefined;
  /** No purge is sent before this time (the interval, or a retry's backoff). */
  private nextPurgeMs = Number.NEGATIVE_INFINITY;
  private timer: Timer | undefined;
  private failures = 0;
  private closed = false;
  /** Purge requests that succeeded (for tests and metrics). */
  purges = 0;

  constructor(private readonly deps: RepartitionPurgerDeps) {}

  /** Offsets just committed (next offset to read per input partition); purges when due. */
  committed(offsets: readonly { topic: string; partition: number; offset: number }[]): void {
    for (const o of offsets) {
      if (!this.deps.topics.has(o.topic) || o.offset <= 0) continue;
      const key = `${o.topic}\u0000${o.partition}`;
      const known = this.pending.get(key);
      if (!known || known.offset < o.offset)
        this.pending.set(key, { topic: o.topic, partition: o.partition, offset: o.offset });
    }
    this.maybePurge();
  }

  /** Sends no more purges; resolves once the one in flight (if any) has ended. */
  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.inFlight;
  }

  private maybePurge(): void {
    if (this.closed || this.inFlight || this.timer || this.pending.size === 0) return;
    const nowMs = this.deps.clock.nowMs();
    if (nowMs < this.nextPurgeMs) {
      this.timer = this.deps.clock.setTimeout(() => {
        this.timer = undefined;
        this.maybePurge();
      }, this.nextPurgeMs - nowMs);
      return;
    }
    this.nextPurgeMs = nowMs + this.deps.intervalMs;
    const batch = [...this.pending.values()];
    this.pending.clear();
    this.inFlight = this.deps.deleteRecords(batch).then(
      () => {
        this.purges++;
        this.failures = 0;
        this.deps.logger.debug({ partitions: batch }, 'repartition topics purged');
      },
      (err: unknown) => {
        // Newer offsets committed meanwhile win; the others go with the retry.
        for (const o of batch) {
          const key = `${o.topic}\u0000${o.partition}`;
          if (!this.pending.has(key)) this.pending.set(key, o);
        }
        const backoffMs = Math.min(MAX_RETRY_BACKOFF_MS, RETRY_BACKOFF_MS * 2 ** this.failures);
        this.nextPurgeMs = Math.max(this.nextPurgeMs, this.deps.clock.nowMs() + backoffMs);
        const fields = { err, partitions: batch.length, retryInMs: backoffMs };
        if (this.failures++ === 0)
          this.deps.logger.warn(fields, 'purging repartition topics failed; retrying');
        else this.deps.logger.debug(fields, 'purging repartition topics failed again');
      },
    );
    void this.inFlight.finally(() => {
      this.inFlight = undefined;
      this.maybePurge();
    });
  }
}
