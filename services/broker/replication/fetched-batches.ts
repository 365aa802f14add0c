/**
 * Prepares fetched batches for a follower append: a leader's read starts with the batch that holds
 * the fetch offset, so batches that end below the follower's LEO are dropped. A batch that holds
 * the LEO strictly inside it means the two logs have different batch boundaries there: the caller
 * truncates to that batch's base offset and fetches again (the leader has all of it).
 * Reads headers only.
 */
import {
  LOG_OVERHEAD_BYTES,
  OFFSET_BATCH_LENGTH,
  OFFSET_LAST_OFFSET_DELTA,
} from '../../common/records/layout';

export type FetchedBatches =
  /** The batches to append, starting at or after `from` (possibly empty). */
  | { kind: 'append'; batches: Buffer }
  /** A batch straddles `from`: truncate to baseOffset, fetch again. */
  | { kind: 'misaligned'; baseOffset: number };

export function batchesFrom(bytes: Buffer, from: number): FetchedBatches {
  let at = 0;
  while (at + LOG_OVERHEAD_BYTES <= bytes.length) {
    const size = bytes.readInt32BE(at + OFFSET_BATCH_LENGTH) + LOG_OVERHEAD_BYTES;
    if (at + OFFSET_LAST_OFFSET_DELTA + 4 > bytes.length || size <= LOG_OVERHEAD_BYTES) break; // appendAsFollower reports it
    const baseOffset = Number(bytes.readBigInt64BE(at));
    const lastOffset = baseOffset + bytes.readInt32BE(at + OFFSET_LAST_OFFSET_DELTA);
    if (baseOffset >= from) break;
    if (lastOffset >= from) return { kind: 'misaligned', baseOffset };
    at += size;
  }
  return { kind: 'append', batches: at === 0 ? bytes : bytes.subarray(at) };
}
