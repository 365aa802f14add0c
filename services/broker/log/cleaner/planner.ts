/**
 * The cleaner's pure decisions (Kafka's LogCleanerManager.cleanableOffsets and
 * LogCleaner.groupSegmentsBySize): which part of a log may be cleaned, how dirty it is, and how its
 * segments are grouped into cleaned segments.
 *
 * Vocabulary (offsets):
 *   logStart ... firstDirty      the "clean" part: cleaned before, each key at most once in it
 *   firstDirty ... firstUncleanable   the "dirty" part: written since, mapped by the next pass
 *   firstUncleanable ... logEnd  never touched: the active segment, anything at or above the
 *                                recovery point (not yet fsynced and indexed) or the high watermark
 *                                (may still be truncated), and segments holding records newer than
 *                                min.compaction.lag.ms.
 * firstUncleanable is always a segment boundary: only whole segments are cleaned.
 *
 * max.compaction.lag.ms (KIP-354): a log whose cleanable dirty part holds a segment whose first
 * record is older than the lag is overdue, and is cleaned whatever its dirty ratio.
 */
import { MAX_U32 } from '../config';

/** What the planner needs of one segment. */
export interface SegmentSummary {
  baseOffset: number;
  /** The next segment's base offset (the log end for the active segment). */
  endOffset: number;
  sizeBytes: number;
  /** Newest record timestamp (max batch timestamp, else last write time). */
  largestTimestampMs: number;
  /** When its first record was written (its first batch's time), for max.compaction.lag.ms. */
  firstTimestampMs: number;
}

/** A log's state, as cleanableRange reads it. */
export interface CleanableInput {
  /** Every segment, oldest first; the last is the active segment. */
  segments: readonly SegmentSummary[];
  logStartOffset: number;
  /** The cleaner checkpoint (first dirty offset); undefined when the log was never cleaned. */
  checkpoint: number | undefined;
  recoveryPoint: number;
  /** The high watermark, when the broker knows it. */
  maxOffset?: number;
  nowMs: number;
  minCompactionLagMs: number;
  /** Number.MAX_SAFE_INTEGER (or undefined) = no limit. */
  maxCompactionLagMs?: number;
}

/** The parts of a log (see the header) and how dirty it is. */
export interface Cleanable {
  firstDirtyOffset: number;
  firstUncleanableOffset: number;
  /** segments[0, cleanableCount) lie wholly below firstUncleanable. */
  cleanableCount: number;
  cleanBytes: number;
  dirtyBytes: number;
  /** dirtyBytes / (cleanBytes + dirtyBytes), 0 when both are 0. */
  dirtyRatio: number;
  /**
   * How long past max.compaction.lag.ms the oldest cleanable dirty segment is (ms); 0 when none
   * is: above 0 the log is cleaned whatever its ratio.
   */
  overdueMs: number;
}

/** Splits a log into clean, dirty and uncleanable parts (see the header) and measures them. */
export function cleanableRange(input: CleanableInput): Cleanable {
  const { segments } = input;
  const active = segments[segments.length - 1];
  let firstDirty = input.checkpoint ?? input.logStartOffset;
  // A checkpoint below the log start (retention moved it) or beyond the active segment (stale
  // after a truncation) restarts from the log start.
  if (firstDirty < input.logStartOffset || firstDirty > active.baseOffset) firstDirty = input.logStartOffset;
  let bound = Math.min(active.baseOffset, input.recoveryPoint, input.maxOffset ?? Number.POSITIVE_INFINITY);
  if (input.minCompactionLagMs > 0) {
    const newest = input.nowMs - input.minCompactionLagMs;
    const recent = segments.find(
      (s, i) => i < segments.length - 1 && s.endOffset > firstDirty && s.largestTimestampMs > newest,
    );
    if (recent) bound = Math.min(bound, recent.baseOffset);
  }
  let cleanableCount = 0;
  while (cleanableCount < segments.length - 1 && segments[cleanableCount].endOffset <= bound)
    cleanableCount++;
  const firstUncleanable =
    cleanableCount > 0 ? segments[cleanableCount - 1].endOffset : segments[0].baseOffset;
  let cleanBytes = 0;
  let dirtyBytes = 0;
  let oldestDirtyMs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < cleanableCount; i++) {
    if (segments[i].endOffset <= firstDirty) cleanBytes += segments[i].sizeBytes;
    else {
      dirtyBytes += segments[i].sizeBytes;
      if (segments[i].firstTimestampMs >= 0)
        oldestDirtyMs = Math.min(oldestDirtyMs, segments[i].firstTimestampMs);
    }
  }
  const total = cleanBytes + dirtyBytes;
  const maxLagMs = input.maxCompactionLagMs ?? Number.MAX_SAFE_INTEGER;
  const deadlineMs = input.nowMs - maxLagMs;
  return {
    firstDirtyOffset: Math.min(firstDirty, Math.max(firstUncleanable, input.logStartOffset)),
    firstUncleanableOffset: firstUncleanable,
    cleanableCount,
    cleanBytes,
    dirtyBytes,
    dirtyRatio: total === 0 ? 0 : dirtyBytes / total,
    overdueMs:
      maxLagMs < Number.MAX_SAFE_INTEGER && dirtyBytes > 0 && oldestDirtyMs < deadlineMs
        ? deadlineMs - oldestDirtyMs
        : 0,
  };
}

/**
 * Groups consecutive segments so each group becomes one cleaned segment: at most maxBytes of
 * input (cleaning only shrinks them, so the output fits too) and an offset range that fits the
 * u32 relative offsets of one segment. Returns [start, end) index pairs covering every segment.
 */
export function groupSegments(
  segments: readonly Pick<SegmentSummary, 'baseOffset' | 'endOffset' | 'sizeBytes'>[],
  maxBytes: number,
): Array<[number, number]> {
  const limit = Math.min(maxBytes, MAX_U32);
  const groups: Array<[number, number]> = [];
  let start = 0;
  while (start < segments.length) {
    let end = start + 1;
    let bytes = segments[start].sizeBytes;
    while (
      end < segments.length &&
      bytes + segments[end].sizeBytes <= limit &&
      segments[end].endOffset - 1 - segments[start].baseOffset <= MAX_U32
    ) {
      bytes += segments[end].sizeBytes;
      end++;
    }
    groups.push([start, end]);
    start = end;
  }
  return groups;
}
