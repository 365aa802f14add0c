/**
 * One partition replica hosted by this broker: its log plus the state the storage engine does not
 * know about — the high watermark, the leader epoch, and the consumers long-polling for new data.
 *
 * With one replica the high watermark is the end of what append() has written (and fsynced, under
 * the 'sync' flush policy). Replication (a later layer) moves it to the smallest LEO of the ISR.
 */
import type { AppendResult, PartitionLog, ReadResult } from '../log/interface';
import type { Clock, Timer } from '../../common/clock';
import { TideError } from '../../common/errors';

export interface PartitionReadResult extends ReadResult {
  highWatermark: number;
}

interface Waiter {
  offset: number;
  resolve: () => void;
  timer?: Timer;
}

export class Partition {
  readonly topic: string;
  readonly partition: number;
  private hw: number;
  private waiters = new Set<Waiter>();
  private closed = false;

  constructor(
    readonly log: PartitionLog,
    private readonly deps: { clock: Clock; leaderEpoch: number },
  ) {
    this.topic = log.topic;
    this.partition = log.partition;
    // Everything on disk at open time was written before; a single replica may expose it all.
    this.hw = log.logEndOffset;
  }

  get highWatermark(): number {
    return this.hw;
  }

  get leaderEpoch(): number {
    return this.deps.leaderEpoch;
  }

  /** Appends and advances the high watermark once the log has the bytes. */
  async append(batches: Buffer): Promise<AppendResult> {
    this.ensureOpen();
    const result = await this.log.append(batches, { leaderEpoch: this.deps.leaderEpoch });
    this.advanceHighWatermark(result.lastOffset + 1);
    return result;
  }

  /** Reads committed data only: nothing at or above the high watermark. */
  async read(offset: number, maxBytes: number): Promise<PartitionReadResult> {
    this.ensureOpen();
    if (offset > this.hw && offset <= this.log.logEndOffset) {
      // Written but not yet committed: the consumer waits, it is not out of range.
      return { batches: Buffer.alloc(0), nextOffset: offset, logStartOffset: this.log.logStartOffset, highWatermark: this.hw };
    }
    const result = await this.log.read(offset, maxBytes, { maxOffset: this.hw });
    return { ...result, highWatermark: this.hw };
  }

  /**
   * Resolves when data at or after `offset` is committed, after maxWaitMs, or when the
   * partition closes, whichever comes first. Never rejects.
   */
  waitForData(offset: number, maxWaitMs: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || this.hw > offset || maxWaitMs <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = { offset, resolve };
      if (Number.isFinite(maxWaitMs)) {
        waiter.timer = this.deps.clock.setTimeout(() => this.release(waiter), maxWaitMs);
      }
      signal?.addEventListener('abort', () => this.release(waiter), { once: true });
      this.waiters.add(waiter);
    });
  }

  /** Cancels a waitForData early (e.g. the fetch stream was cancelled). */
  wakeAll(): void {
    for (const waiter of [...this.waiters]) this.release(waiter);
  }

  /** Stops serving; pending long polls return at once. The log is closed by its owner. */
  close(): void {
    this.closed = true;
    this.wakeAll();
  }

  private advanceHighWatermark(offset: number): void {
    if (offset <= this.hw) return;
    this.hw = offset;
    for (const waiter of [...this.waiters]) if (waiter.offset < this.hw) this.release(waiter);
  }

  private release(waiter: Waiter): void {
    if (!this.waiters.delete(waiter)) return;
    waiter.timer?.cancel();
    waiter.resolve();
  }

  private ensureOpen(): void {
    if (this.closed) {
      throw new TideError('NOT_LEADER', `partition ${this.topic}-${this.partition} is no longer hosted here`, {
        context: { topic: this.topic, partition: this.partition },
      });
    }
  }
}
