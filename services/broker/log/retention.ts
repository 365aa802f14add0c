/**
 * Which segments retention deletes: a pure function over a summary of the segments, oldest first,
 * the last one being the active segment.
 *
 * - Time (retentionMs >= 0): the longest prefix of segments whose newest timestamp is more than
 *   retentionMs before now. The active segment counts only when it is not empty and every older
 *   segment is expired too; then the log must roll first (`rollActive`), as Kafka does, so the
 *   whole expired log can go while a fresh empty segment stays.
 * - Size (retentionBytes >= 0): then, oldest non-active segments while the total size minus that
 *   segment stays >= retentionBytes.
 * - Never past `maxOffset` (e.g. the high watermark): a segment goes only if it ends at or below.
 */
import type { LogConfig } from './interface';

export interface RetentionSegment {
  baseOffset: number;
  sizeBytes: number;
  /** Newest timestamp in the segment (see LogSegment.largestTimestampMs). */
  largestTimestampMs: number;
  /** The offset after the segment's last batch (next segment's base offset, or LEO). */
  endOffset: number;
}

export interface RetentionPlan {
  /** How many of the oldest segments to delete (may include the active one when rollActive). */
  deleteCount: number;
  /** Roll the active segment first, because it is deleted too. */
  rollActive: boolean;
  byTime: number;
  bySize: number;
}

export function planRetention(
  segments: readonly RetentionSegment[],
  config: Pick<LogConfig, 'retentionMs' | 'retentionBytes'>,
  nowMs: number,
  maxOffset = Number.POSITIVE_INFINITY,
): RetentionPlan {
  const activeIndex = segments.length - 1;
  let byTime = 0;
  if (config.retentionMs >= 0) {
    while (byTime < segments.length) {
      const s = segments[byTime];
      if (nowMs - s.largestTimestampMs <= config.retentionMs || s.endOffset > maxOffset) break;
      if (byTime === activeIndex && s.sizeBytes === 0) break;
      byTime++;
    }
  }
  const rollActive = byTime === segments.length && segments.length > 0;
  let bySize = 0;
  if (config.retentionBytes >= 0 && !rollActive) {
    let excess = segments.reduce((sum, s) => sum + s.sizeBytes, 0) - config.retentionBytes;
    for (let i = 0; i < byTime; i++) excess -= segments[i].sizeBytes;
    for (let i = byTime; i < activeIndex; i++) {
      const s = segments[i];
      if (excess - s.sizeBytes < 0 || s.endOffset > maxOffset) break;
      excess -= s.sizeBytes;
      bySize++;
    }
  }
  return { deleteCount: byTime + bySize, rollActive, byTime, bySize };
}
