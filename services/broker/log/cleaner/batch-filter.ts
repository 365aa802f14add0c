/**
 * What the cleaner does to one record batch: keep it as it is, drop it, or write a smaller copy
 * (Kafka's MemoryRecords.filterTo with the LogCleaner's retention rules). Pure: bytes in, bytes
 * out; the offset map says which records are the latest of their key.
 *
 * A record is kept when all hold:
 *   - it has a key (keyless records cannot exist on a compacted topic, appends refuse them; ones
 *     left from before the topic became compacted are dropped, as Kafka does);
 *   - the map has no later offset for its key (records above the mapped range always qualify);
 *   - it is not a tombstone (null value) whose batch's delete horizon has passed.
 * Records of aborted transactions are dropped (`aborted`); control batches (transaction markers)
 * are kept whole until their transaction has no batch left, then dropped after their delete horizon
 * (`markers`; both in transactions.ts).
 *
 * A rewritten batch keeps its baseOffset, lastOffsetDelta (so the producer's last sequence stays
 * derivable), partitionLeaderEpoch, producer id/epoch/base sequence, compression codec and
 * timestamp type; records keep their offset deltas (offsets never change, compaction leaves gaps);
 * recordCount, maxTimestamp (CreateTime: the largest kept record's) and the CRC are recomputed.
 *
 * Delete horizon (Kafka's KIP-534): the first time the cleaner keeps a tombstone in a batch that
 * has no horizon yet, it sets attribute bit 6 (DELETE_HORIZON_BIT) and stores
 * `now + delete.retention.ms` in the batch's baseTimestamp; record timestampDeltas are re-based on
 * it so every record keeps its exact timestamp. A later cleaning at or after the horizon drops the
 * batch's tombstones. So a tombstone stays readable for delete.retention.ms after the cleaning
 * that first saw it, whatever happens to its segment meanwhile.
 *
 * Batch headers that must survive even when every record goes (`retainHeader`): the last batch of
 * a producer still in the producer state (its sequence numbers must stay in the log, as Kafka
 * keeps them), and the last batch of each cleaned segment (so a cleaned segment ends exactly where
 * its originals ended; the swap recovery relies on it, see ../segment-swap.ts). Such a batch is
 * written empty: the 61-byte header with recordCount 0 and no compression.
 */
import {
  BATCH_HEADER_BYTES,
  COMPRESSION_MASK,
  CONTROL_BIT,
  LOG_OVERHEAD_BYTES,
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_TIMESTAMP,
  OFFSET_BATCH_LENGTH,
  OFFSET_MAX_TIMESTAMP,
  OFFSET_RECORD_COUNT,
  OFFSET_RECORDS,
  TIMESTAMP_TYPE_BIT,
  compressionOf,
  readBatchHeader,
  writeBatchCrc,
  type BatchHeader,
} from '../../../common/records/layout';
import { compress, decompress } from '../../../common/records/compression';
import { sizeOfVarint, sizeOfVarlong, writeVarint, writeVarlong } from '../../../common/records/varint';
import type { OffsetMap } from './offset-map';
import { RecordCursor } from './record-walk';
import type { AbortedRanges, MarkerTracker } from './transactions';

/** Batch attribute bit 6: baseTimestamp holds the delete horizon (Kafka's hasDeleteHorizonMs). */
export const DELETE_HORIZON_BIT = 0x40;

/** What the filter needs besides the batch. */
export interface FilterContext {
  map: OffsetMap;
  nowMs: number;
  deleteRetentionMs: number;
  /** producerId → last offset of that producer's latest batch in the producer state. */
  producerLastOffsets: ReadonlyMap<number, number>;
  /** Aborted transactions of the cleaned range; absent = none. */
  aborted?: AbortedRanges;
  /** Marker retention across the pass (told of every batch written); absent = markers kept. */
  markers?: MarkerTracker;
}

/** What became of one batch, with counts for the pass's stats. */
export interface FilterOutcome {
  kind: 'keep' | 'drop' | 'rewrite';
  /** The new batch when kind is 'rewrite'. */
  bytes?: Buffer;
  recordsIn: number;
  recordsKept: number;
  tombstonesDropped: number;
  keylessDropped: number;
  /** Records dropped because their transaction was aborted. */
  abortedDropped: number;
  /** maxTimestamp of the batch written (kept or rewritten). */
  maxTimestamp: number;
  /** The delete horizon of the batch written when it still holds tombstones, else -1. */
  tombstoneHorizonMs: number;
}

/** The records section of a batch, decompressed. */
export function recordsOf(batch: Buffer, header: BatchHeader): Buffer {
  return decompress(compressionOf(header.attributes), batch.subarray(OFFSET_RECORDS, header.sizeBytes));
}

/**
 * Filters one whole batch (batch[0, sizeBytes), its CRC already checked). `retainHeader` keeps at
 * least an empty batch even when no record is kept.
 */
export function filterBatch(batch: Buffer, ctx: FilterContext, retainHeader: boolean): FilterOutcome {
  const h = readBatchHeader(batch, 0);
  const outcome: FilterOutcome = {
    kind: 'keep',
    recordsIn: h.recordCount,
    recordsKept: h.recordCount,
    tombstonesDropped: 0,
    keylessDropped: 0,
    abortedDropped: 0,
    maxTimestamp: h.maxTimestamp,
    tombstoneHorizonMs: -1,
  };
  if (h.attributes & CONTROL_BIT) {
    if (!ctx.markers) return outcome;
    const decision = ctx.markers.decide(batch, h, ctx.nowMs, ctx.deleteRetentionMs, retainHeader);
    if (decision.kind === 'drop') return { ...outcome, kind: 'drop', recordsKept: 0 };
    if (decision.horizonMs !== undefined) outcome.tombstoneHorizonMs = decision.horizonMs;
    if (decision.kind === 'rewrite') return { ...outcome, kind: 'rewrite', bytes: decision.bytes };
    return outcome;
  }
  if (ctx.aborted?.holds(h)) {
    outcome.recordsKept = 0;
    outcome.abortedDropped = h.recordCount;
    const lastOffset = h.baseOffset + h.lastOffsetDelta;
    const producerLast = ctx.producerLastOffsets.get(h.producerId) === lastOffset;
    if (!retainHeader && !producerLast) outcome.kind = 'drop';
    else if (h.recordCount > 0) {
      outcome.kind = 'rewrite';
      outcome.bytes = emptyBatch(batch);
    }
    return outcome;
  }
  const data = recordsOf(batch, h);
  const hasHorizon = (h.attributes & DELETE_HORIZON_BIT) !== 0;
  const dropTombstones = hasHorizon && ctx.nowMs >= h.baseTimestamp;
  const kept: number[] = []; // per kept record: start, end, timestampDelta, offsetDelta, restStart
  let tombstonesKept = 0;
  const cursor = new RecordCursor(data, 0, data.length, h.recordCount);
  while (cursor.next()) {
    if (cursor.keyLength < 0) {
      outcome.keylessDropped++;
      continue;
    }
    const offset = h.baseOffset + cursor.offsetDelta;
    const latest = ctx.map.get(data, cursor.keyStart, cursor.keyStart + cursor.keyLength);
    if (latest >= 0 && offset < latest) continue;
    if (cursor.valueLength < 0) {
      if (dropTombstones) {
        outcome.tombstonesDropped++;
        continue;
      }
      tombstonesKept++;
    }
    kept.push(cursor.start, cursor.end, cursor.timestampDelta, cursor.offsetDelta, cursor.restStart);
  }
  const keptCount = kept.length / 5;
  outcome.recordsKept = keptCount;
  const setHorizon = tombstonesKept > 0 && !hasHorizon;
  const baseTimestamp = setHorizon ? ctx.nowMs + ctx.deleteRetentionMs : h.baseTimestamp;
  if (tombstonesKept > 0) outcome.tombstoneHorizonMs = baseTimestamp;
  if (keptCount === 0) {
    const lastOffset = h.baseOffset + h.lastOffsetDelta;
    const producerLast = h.producerId >= 0 && ctx.producerLastOffsets.get(h.producerId) === lastOffset;
    if (!retainHeader && !producerLast) outcome.kind = 'drop';
    else if (h.recordCount > 0) {
      outcome.kind = 'rewrite';
      outcome.bytes = emptyBatch(batch);
    }
    return outcome;
  }
  if (keptCount === h.recordCount && !setHorizon) return outcome;

  const logAppendTime = (h.attributes & TIMESTAMP_TYPE_BIT) !== 0;
  let maxTimestamp = logAppendTime ? h.maxTimestamp : -1;
  let size = 0;
  const rebase = baseTimestamp !== h.baseTimestamp;
  for (let i = 0; i < kept.length; i += 5) {
    const timestamp = h.baseTimestamp + kept[i + 2];
    if (!logAppendTime && timestamp > maxTimestamp) maxTimestamp = timestamp;
    if (!rebase) size += kept[i + 1] - kept[i];
    else {
      const body =
        1 +
        sizeOfVarlong(timestamp - baseTimestamp) +
        sizeOfVarint(kept[i + 3]) +
        (kept[i + 1] - kept[i + 4]);
      size += sizeOfVarint(body) + body;
    }
  }
  let records: Buffer = Buffer.allocUnsafe(size);
  let p = 0;
  for (let i = 0; i < kept.length; i += 5) {
    if (!rebase) {
      p += data.copy(records, p, kept[i], kept[i + 1]);
      continue;
    }
    const timestampDelta = h.baseTimestamp + kept[i + 2] - baseTimestamp;
    const rest = kept[i + 1] - kept[i + 4];
    const body = 1 + sizeOfVarlong(timestampDelta) + sizeOfVarint(kept[i + 3]) + rest;
    p = writeVarint(records, body, p);
    records[p++] = 0;
    p = writeVarlong(records, timestampDelta, p);
    p = writeVarint(records, kept[i + 3], p);
    p += data.copy(records, p, kept[i + 4], kept[i + 1]);
  }
  records = compress(compressionOf(h.attributes), records);
  const out = Buffer.allocUnsafe(BATCH_HEADER_BYTES + records.length);
  batch.copy(out, 0, 0, BATCH_HEADER_BYTES);
  records.copy(out, BATCH_HEADER_BYTES);
  out.writeInt32BE(out.length - LOG_OVERHEAD_BYTES, OFFSET_BATCH_LENGTH);
  if (setHorizon) out.writeInt16BE(h.attributes | DELETE_HORIZON_BIT, OFFSET_ATTRIBUTES);
  out.writeBigInt64BE(BigInt(baseTimestamp), OFFSET_BASE_TIMESTAMP);
  out.writeBigInt64BE(BigInt(maxTimestamp), OFFSET_MAX_TIMESTAMP);
  out.writeInt32BE(keptCount, OFFSET_RECORD_COUNT);
  writeBatchCrc(out, 0, out.length);
  outcome.kind = 'rewrite';
  outcome.bytes = out;
  outcome.maxTimestamp = maxTimestamp;
  return outcome;
}

/** The batch's header alone: recordCount 0, no compression (nothing to decompress), new CRC. */
export function emptyBatch(batch: Buffer): Buffer {
  const out = Buffer.from(batch.subarray(0, BATCH_HEADER_BYTES));
  out.writeInt32BE(BATCH_HEADER_BYTES - LOG_OVERHEAD_BYTES, OFFSET_BATCH_LENGTH);
  out.writeInt16BE(out.readInt16BE(OFFSET_ATTRIBUTES) & ~COMPRESSION_MASK, OFFSET_ATTRIBUTES);
  out.writeInt32BE(0, OFFSET_RECORD_COUNT);
  writeBatchCrc(out, 0, out.length);
  return out;
}
