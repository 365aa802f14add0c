/**
 * Retention and truncation of a partition log: the operations that remove segments or cut the log,
 * each run exclusively through the read-write gate. Retention deletes whole segments from the start
 * (plan in retention.ts) and moves the log start offset; advancing the log start (DeleteRecords)
 * moves it to any offset up to the log end and deletes the segments wholly below it; truncation
 * cuts the end back (a follower whose log diverged from its leader's) or empties the log and
 * restarts it at a new offset.
 */
import * as path from 'node:path';
import { TideError } from '../../common/errors';
import { writeOffsetCheckpoint } from './checkpoint';
import type { LogCompaction } from './compaction';
import { fsyncDir } from './fs-util';
import type { RetentionOptions } from './interface';
import type { LogAppender } from './log-append';
import { restoreProducerState } from './log-loader';
import type { PartitionLogState } from './log-state';
import { LOG_START_OFFSET_FILE, RECOVERY_POINT_FILE } from './names';
import type { ReadWriteGate } from './read-write-gate';
import { planRetention } from './retention';
import { LogSegment } from './segment';

export class RetentionAndTruncation {
  constructor(
    private readonly log: PartitionLogState,
    private readonly gate: ReadWriteGate,
    private readonly appender: LogAppender,
    private readonly compaction: LogCompaction,
  ) {}

  async applyRetention(nowMs: number, options: RetentionOptions = {}): Promise<number> {
    const log = this.log;
    if (log.status !== 'open') return 0;
    // cleanup.policy=compact alone keeps every segment: only the cleaner removes records.
    if (!log.cleanup.delete) return 0;
    return this.gate.runExclusive(async () => {
      if (log.status !== 'open') return 0;
      const summary = log.segments.map((s, i) => ({
        baseOffset: s.baseOffset,
        sizeBytes: s.sizeBytes,
        largestTimestampMs: s.largestTimestampMs(),
        endOffset: log.segments[i + 1]?.baseOffset ?? log.nextOffset,
      }));
      const plan = planRetention(summary, log.config, nowMs, options.maxOffset);
      if (plan.deleteCount === 0) return 0;
      if (plan.rollActive) {
        this.appender.roll('retention', nowMs);
        await log.writer.barrier();
      }
      const newStart = log.segments[plan.deleteCount].baseOffset;
      const { segments, bytes } = await this.startAt(newStart, plan.deleteCount);
      log.logger.info(
        {
          segments,
          bytes,
          byTime: plan.byTime,
          bySize: plan.bySize,
          logStartOffset: log.startOffset,
        },
        'retention deleted segments',
      );
      return bytes;
    });
  }

  /** PartitionLog.advanceLogStartOffset: DeleteRecords, or a follower following its leader. */
  async advanceStartOffset(offset: number): Promise<number> {
    const log = this.log;
    if (log.status !== 'open') throw log.unavailable();
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new TideError('INVALID_REQUEST', `invalid log start offset ${offset}`);
    return this.gate.runExclusive(async () => {
      if (log.status !== 'open') throw log.unavailable();
      if (offset <= log.startOffset) return 0;
      if (offset > log.nextOffset) {
        throw new TideError(
          'OFFSET_OUT_OF_RANGE',
          `cannot move the log start of ${log.topic}-${log.partition} to ${offset}: the log ends at ${log.nextOffset}`,
          { context: { topic: log.topic, partition: log.partition, offset } },
        );
      }
      // Whole segments below the new start go; the one holding it stays (reads check the start).
      let wholly = 0;
      while (wholly + 1 < log.segments.length && log.segments[wholly + 1].baseOffset <= offset) wholly++;
      const { segments, bytes } = await this.startAt(offset, wholly);
      log.logger.info({ logStartOffset: offset, segments, bytes }, 'log start offset advanced');
      return bytes;
    });
  }

  /**
   * Inside an exclusive section: moves the log start to `newStart` (never back) and deletes the
   * first `dropCount` segments, which end at or below it. The checkpoint is written before any
   * file is deleted, so a crash in between leaves files the loader deletes as below the start.
   */
  private async startAt(newStart: number, dropCount: number): Promise<{ segments: number; bytes: number }> {
    const log = this.log;
    const doomed = log.segments.splice(0, dropCount);
    log.startOffset = Math.max(log.startOffset, newStart);
    await writeOffsetCheckpoint(path.join(log.dir, LOG_START_OFFSET_FILE), log.startOffset);
    await log.persistEpochsNow(log.epochs.truncateFromStart(log.startOffset));
    log.producers.removeBefore(log.startOffset);
    let bytes = 0;
    for (const segment of doomed) {
      bytes += segment.sizeBytes;
      await segment.deleteFiles();
    }
    const firstBase = log.segments[0].baseOffset;
    await log.snapshots.deleteWhere((offset) => offset < firstBase);
    await fsyncDir(log.dir);
    return { segments: doomed.length, bytes };
  }

  async truncateTo(offset: number): Promise<void> {
    const log = this.log;
    if (log.status !== 'open') throw log.unavailable();
    await this.gate.runExclusive(async () => {
      if (offset >= log.nextOffset) {
        // The log is already short enough, but epochs that start there have no batch left.
        await log.persistEpochsNow(log.epochs.truncateFromEnd(offset));
        return;
      }
      const before = log.nextOffset;
      if (offset < log.segments[0].baseOffset || offset < log.startOffset) {
        await this.truncateFullyAndStartAt(offset);
      } else {
        const index = log.floorSegment(offset);
        for (const segment of log.segments.splice(index + 1)) await segment.deleteFiles();
        const segment = log.active;
        await segment.truncateTo(offset);
        await segment.initRollingTimestamp(log.clock.nowMs());
        log.nextOffset = segment.nextOffset;
        log.writtenEndOffset = segment.nextOffset;
        await this.compaction.onTruncate(log.nextOffset);
        if (log.recoveryPoint > segment.baseOffset) {
          log.recoveryPoint = segment.baseOffset;
          await writeOffsetCheckpoint(path.join(log.dir, RECOVERY_POINT_FILE), log.recoveryPoint);
        }
        await restoreProducerState({
          segments: log.segments,
          snapshots: log.snapshots,
          producers: log.producers,
          endOffset: log.nextOffset,
          logStartOffset: log.startOffset,
          logger: log.logger,
        });
      }
      await log.persistEpochsNow(log.epochs.truncateFromEnd(log.nextOffset));
      await fsyncDir(log.dir);
      log.logger.info({ requested: offset, from: before, logEndOffset: log.nextOffset }, 'truncated log');
    });
  }

  async truncateFully(offset: number): Promise<void> {
    const log = this.log;
    if (log.status !== 'open') throw log.unavailable();
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new TideError('INVALID_REQUEST', `invalid offset ${offset}`);
    await this.gate.runExclusive(async () => {
      const before = log.nextOffset;
      await this.truncateFullyAndStartAt(offset);
      await fsyncDir(log.dir);
      log.logger.info({ from: before, logStartOffset: offset }, 'log emptied; restarting at a new offset');
    });
  }

  private async truncateFullyAndStartAt(offset: number): Promise<void> {
    const log = this.log;
    await this.compaction.onTruncate(offset);
    await log.persistEpochsNow(log.epochs.clear());
    for (const segment of log.segments.splice(0)) await segment.deleteFiles();
    const segment = new LogSegment(log.dir, offset, log.config.indexIntervalBytes);
    await segment.createFile(log.config.flushPolicy === 'sync');
    segment.lastModifiedMs = log.clock.nowMs();
    log.segments = [segment];
    log.nextOffset = offset;
    log.writtenEndOffset = offset;
    log.startOffset = offset;
    log.recoveryPoint = offset;
    log.producers.clear();
    await log.snapshots.deleteWhere(() => true);
    await writeOffsetCheckpoint(path.join(log.dir, LOG_START_OFFSET_FILE), offset);
    await writeOffsetCheckpoint(path.join(log.dir, RECOVERY_POINT_FILE), offset);
  }
}
