/**
 * Loads a partition's leader-epoch cache when the log opens (format: leader-epoch-cache.ts).
 *
 * The checkpoint is written when a replica becomes leader (assignEpoch), on truncation and on
 * retention, but not on the append path (no fs call per append). So the loader takes the stored
 * entries (none when the file is missing or invalid), fits them to the log (entries at or past the
 * log end go: their batches never reached the file; entries below the log start collapse into one
 * at the log start) and then replays the batch headers from the newest entry's start offset to the
 * log end, which re-adds every epoch appended since the file was written. Each batch carries the
 * partitionLeaderEpoch that wrote it, so the result is exact.
 *
 * The replay reads only batch headers, and skips a whole segment when its last batch carries the
 * newest epoch already known, or when its first and last batches carry the same epoch (epochs
 * never decrease along a log): a log with few epochs costs a few header reads per segment.
 */
import * as path from 'node:path';
import type { Logger } from '../../common/logger';
import { BATCH_HEADER_BYTES, OFFSET_PARTITION_LEADER_EPOCH } from '../../common/records/layout';
import { scanBatches } from './batch-scan';
import { readExactly } from './fs-util';
import {
  LEADER_EPOCH_CHECKPOINT_FILE,
  LeaderEpochCache,
  readLeaderEpochCheckpoint,
  type EpochEntry,
} from './leader-epoch-cache';
import type { LogSegment } from './segment';

export interface LoadLeaderEpochsOptions {
  dir: string;
  /** Oldest first, as loaded (the last is the active segment). */
  segments: readonly LogSegment[];
  logStartOffset: number;
  logEndOffset: number;
  logger: Logger;
}

export interface LoadedLeaderEpochs {
  cache: LeaderEpochCache;
  /** True when the entries differ from the file: the next checkpoint write must happen. */
  dirty: boolean;
  /** The entries of the file as read (undefined: missing or invalid). */
  onDisk: readonly EpochEntry[] | undefined;
}

export async function loadLeaderEpochCache(options: LoadLeaderEpochsOptions): Promise<LoadedLeaderEpochs> {
  const file = path.join(options.dir, LEADER_EPOCH_CHECKPOINT_FILE);
  const stored = await readLeaderEpochCheckpoint(file, options.logger);
  const cache = new LeaderEpochCache(stored ?? []);
  let dirty = cache.truncateFromEnd(options.logEndOffset);
  dirty = cache.truncateFromStart(options.logStartOffset) || dirty;
  const from = Math.max(cache.latestStartOffset ?? options.logStartOffset, options.logStartOffset);
  dirty = (await replayEpochs(cache, options.segments, from)) || dirty;
  if (dirty) {
    options.logger.info(
      {
        entries: cache.entries().length,
        latestEpoch: cache.latestEpoch,
        fromOffset: from,
        hadCheckpoint: !!stored,
      },
      'leader epochs replayed from batch headers',
    );
  }
  return { cache, dirty, onDisk: stored };
}

/** Assigns the epochs of the batches at or after `from`; true when the cache changed. */
async function replayEpochs(
  cache: LeaderEpochCache,
  segments: readonly LogSegment[],
  from: number,
): Promise<boolean> {
  let changed = false;
  for (const segment of segments) {
    if (segment.nextOffset <= from || segment.sizeBytes < BATCH_HEADER_BYTES) continue;
    const last = await lastBatchEpoch(segment);
    if (last === cache.latestEpoch) continue;
    const position = segment.baseOffset >= from ? 0 : segment.offsetIndex.lookup(from).position;
    const first = await headerAt(segment, position);
    if (first.baseOffset >= from && first.epoch === last) {
      changed = cache.assign(first.epoch, first.baseOffset) || changed;
      continue;
    }
    await scanBatches(
      segment.file,
      position,
      segment.sizeBytes,
      {
        verifyCrc: false,
        segmentBaseOffset: segment.baseOffset,
        minBaseOffset: first.baseOffset,
        file: segment.logFile,
      },
      (batch) => {
        if (batch.baseOffset >= from)
          changed = cache.assign(batch.partitionLeaderEpoch, batch.baseOffset) || changed;
      },
    );
  }
  return changed;
}

async function headerAt(
  segment: LogSegment,
  position: number,
): Promise<{ epoch: number; baseOffset: number }> {
  const header = await readExactly(segment.file, segment.logFile, position, BATCH_HEADER_BYTES);
  return {
    epoch: header.readInt32BE(OFFSET_PARTITION_LEADER_EPOCH),
    baseOffset: Number(header.readBigInt64BE(0)),
  };
}

/** The epoch of the segment's last batch: a header walk from its last index entry. */
async function lastBatchEpoch(segment: LogSegment): Promise<number> {
  const from = segment.offsetIndex.lookup(Math.max(segment.baseOffset, segment.nextOffset - 1));
  let epoch = -1;
  await scanBatches(
    segment.file,
    from.position,
    segment.sizeBytes,
    {
      verifyCrc: false,
      segmentBaseOffset: segment.baseOffset,
      minBaseOffset: from.offset,
      file: segment.logFile,
    },
    (batch) => {
      epoch = batch.partitionLeaderEpoch;
    },
  );
  return epoch;
}
