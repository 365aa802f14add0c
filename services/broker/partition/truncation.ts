/**
 * Where a follower truncates when its leader answers a fetch with a diverging epoch (KIP-320; the
 * rule is Kafka's AbstractFetcherThread.getOffsetTruncationState). Pure.
 *
 * The leader says: "the largest epoch I have that is <= your last fetched epoch is E, and my log
 * leaves E at offset X" (diverging = {epoch: E, endOffset: X}). The follower looks up E in its own
 * epoch cache:
 *   - it has E too: both logs hold E's batches from the same leader up to where the shorter of the
 *     two stops, so truncate to min(X, the follower's end of E, its LEO); done in one step;
 *   - its largest epoch <= E is an older E' < E: E is unknown here, so truncate to the follower's
 *     end of E' (and its LEO); the next fetch carries E' as the last fetched epoch and the leader
 *     answers again (the rapid double leader change of KIP-279 converges in a few rounds);
 *   - it knows no epoch <= E (or the leader could not name an epoch, E = -1): truncate to
 *     min(X, LEO).
 * Truncation therefore only ever follows leader epochs, never the high watermark alone.
 */
import type { EpochEndOffset } from '../log';

export function divergenceTruncationOffset(args: {
  /** The leader's answer. */
  diverging: EpochEndOffset;
  /** The follower's log end offset. */
  logEndOffset: number;
  /** The follower's own endOffsetForEpoch. */
  endOffsetForEpoch: (epoch: number) => EpochEndOffset | undefined;
}): number {
  const { diverging, logEndOffset } = args;
  if (diverging.epoch < 0) return Math.min(diverging.endOffset, logEndOffset);
  const local = args.endOffsetForEpoch(diverging.epoch);
  if (!local) return Math.min(diverging.endOffset, logEndOffset);
  if (local.epoch !== diverging.epoch) return Math.min(local.endOffset, logEndOffset);
  return Math.min(local.endOffset, diverging.endOffset, logEndOffset);
}
