/**
 * The max.message.bytes of the topics an application writes to (outputs, repartition topics, a
 * dead-letter topic), read at start and again every minute, so a limit raised while the
 * application runs is used within that time. Each sink record is checked against its topic's
 * limit (record-size.ts); a topic whose limit is not known is not checked (the broker still is).
 */
import type { Logger } from '../../services/common/logger';
import { checkRecordFits } from './record-size';
import type { OutgoingRecord } from './internal-context';

const SINK_LIMITS_REFRESH_MS = 60_000;

export class SinkTopicLimits {
  private readonly limits = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly topics: readonly string[],
    /** The topic's effective max.message.bytes; undefined when it cannot be read. */
    private readonly read: (topic: string) => Promise<number | undefined>,
    private readonly logger: Logger,
  ) {}

  /** Reads every limit, then keeps them fresh until close(). */
  async start(refreshMs = SINK_LIMITS_REFRESH_MS): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), refreshMs);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Throws StreamsError RECORD_TOO_LARGE when the record cannot fit its topic. */
  check(record: OutgoingRecord): void {
    const limit = this.limits.get(record.topic);
    if (limit !== undefined) checkRecordFits(record, limit);
  }

  private async refresh(): Promise<void> {
    await Promise.all(
      this.topics.map(async (topic) => {
        try {
          const limit = await this.read(topic);
          if (limit !== undefined) this.limits.set(topic, limit);
        } catch (err) {
          // The previous value stays; the broker checks every batch anyway.
          this.logger.debug({ err, topic }, 'could not read max.message.bytes of a sink topic');
        }
      }),
    );
  }
}
