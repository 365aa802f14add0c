/**
 * When the active segment must be rolled before a batch is appended: a pure function of the
 * segment's append-side state, the batch and the config.
 */
import { MAX_U32 } from './config';
import type { LogConfig } from './interface';

export type RollReason = 'size' | 'age' | 'compaction-lag' | 'position-overflow' | 'offset-overflow';

export interface RollState {
  baseOffset: number;
  /** Bytes with offsets assigned in the segment. */
  assignedBytes: number;
  /** Clock time of the segment's first batch; undefined while empty. */
  rollingTimestampMs: number | undefined;
}

/**
 * Why the batch (sizeBytes, last offset it would get) cannot go into the segment, or undefined.
 * An empty segment always takes the batch, however large. `compactionLagMs` is the log's
 * max.compaction.lag.ms when it is compacted: the cleaner never touches the active segment, so a
 * segment older than that rolls, as Kafka rolls at min(segment.ms, max.compaction.lag.ms).
 */
export function rollReason(
  segment: RollState,
  batch: { sizeBytes: number; lastOffset: number },
  config: Pick<LogConfig, 'segmentBytes' | 'segmentMs'>,
  nowMs: number,
  compactionLagMs?: number,
): RollReason | undefined {
  if (segment.assignedBytes === 0) return undefined;
  if (segment.assignedBytes + batch.sizeBytes > config.segmentBytes) return 'size';
  if (segment.rollingTimestampMs !== undefined) {
    const ageMs = nowMs - segment.rollingTimestampMs;
    if (config.segmentMs > 0 && ageMs > config.segmentMs) return 'age';
    if (compactionLagMs !== undefined && ageMs > compactionLagMs) return 'compaction-lag';
  }
  if (segment.assignedBytes + batch.sizeBytes > MAX_U32) return 'position-overflow';
  if (batch.lastOffset - segment.baseOffset > MAX_U32) return 'offset-overflow';
  return undefined;
}
