/**
 * Walks the record batches of a segment file region batch by batch, reading the file in large
 * chunks with async I/O (one chunk in memory, the event loop free between chunks), checking each
 * batch's framing and optionally its CRC32C. Used by recovery, index rebuilds, producer-state
 * replay, truncation and timestamp lookups; the read path has its own single-read walk (reader.ts).
 *
 * A batch is accepted when its framing passes (services/common/records/framing.ts: batch size >=
 * 61, it ends inside the region, magic == 2, the CRC matches (when verifyCrc), lastOffsetDelta >=
 * 0, 0 <= recordCount <= lastOffsetDelta + 1: fewer records than offsets after compaction), its baseOffset is at or above the previous batch's last
 * offset + 1 and its last offset fits the segment's u32 relative offsets. The scan stops at the
 * first batch that is not accepted and reports where and why.
 */
import type { FileHandle } from 'node:fs/promises';
import { MAX_U32 } from './config';
import { readExactly, readFully } from './fs-util';
import {
  BATCH_HEADER_BYTES,
  LOG_OVERHEAD_BYTES,
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_OFFSET,
  OFFSET_BASE_SEQUENCE,
  OFFSET_LAST_OFFSET_DELTA,
  OFFSET_MAX_TIMESTAMP,
  OFFSET_PARTITION_LEADER_EPOCH,
  OFFSET_PRODUCER_EPOCH,
  OFFSET_PRODUCER_ID,
  OFFSET_RECORD_COUNT,
} from '../../common/records/layout';
import { batchContentFault, batchSizeFault, describeFramingFault } from '../../common/records/framing';

export const DEFAULT_SCAN_CHUNK_BYTES = 1024 * 1024;

/** One batch found by a scan. */
export interface ScannedBatch {
  /** Byte position in the file. */
  position: number;
  sizeBytes: number;
  baseOffset: number;
  lastOffset: number;
  lastOffsetDelta: number;
  maxTimestamp: number;
  attributes: number;
  partitionLeaderEpoch: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

export interface ScanOptions {
  verifyCrc: boolean;
  /** The segment's base offset: last offsets must fit its u32 relative offsets. */
  segmentBaseOffset: number;
  /** The first batch's baseOffset must be at least this (default: the segment's base offset). */
  minBaseOffset?: number;
  /**
   * Offsets must follow each other exactly (each baseOffset = previous last offset + 1, the first
   * = minBaseOffset): true of every log that is not compacted. Catches a damaged baseOffset, which
   * lies outside the CRC.
   */
  contiguous?: boolean;
  chunkBytes?: number;
  /** The file, for messages. */
  file: string;
}

export interface ScanResult {
  /** Position after the last accepted batch (where the scan stopped). */
  endPosition: number;
  /** Last accepted batch's last offset + 1 (minBaseOffset when none). */
  nextOffset: number;
  /** Set when the scan met a batch it does not accept at endPosition. */
  invalid?: string;
  /** True when onBatch asked to stop. */
  stopped: boolean;
}

/**
 * Scans [from, to) of the file. `onBatch` sees each accepted batch with the buffer holding it (only
 * valid during the call); returning false stops the scan after that batch.
 */
export async function scanBatches(
  handle: FileHandle,
  from: number,
  to: number,
  options: ScanOptions,
  onBatch: (batch: ScannedBatch, buf: Buffer, at: number) => boolean | void,
): Promise<ScanResult> {
  const chunkBytes = Math.max(options.chunkBytes ?? DEFAULT_SCAN_CHUNK_BYTES, BATCH_HEADER_BYTES);
  const chunk = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(to - from, 0)));
  let nextOffset = options.minBaseOffset ?? options.segmentBaseOffset;
  let pos = from;
  const stop = (invalid?: string, stopped = false): ScanResult => ({
    endPosition: pos,
    nextOffset,
    invalid,
    stopped,
  });

  while (pos < to) {
    const want = Math.min(chunk.length, to - pos);
    const got = await readFully(handle, chunk, want, pos);
    if (got < want) return stop(`file ends at ${pos + got}, before the expected ${to}`);
    let at = 0;
    while (at < got) {
      const remaining = to - (pos + at);
      if (got - at < LOG_OVERHEAD_BYTES && remaining >= LOG_OVERHEAD_BYTES) break; // refill from here
      const sizeBytes = batchSizeFault(chunk, at, remaining);
      if (typeof sizeBytes !== 'number') {
        pos += at;
        return stop(describeFramingFault(sizeBytes, 'batch'));
      }
      let buf: Buffer = chunk;
      let bufAt = at;
      if (sizeBytes > got - at) {
        if (at > 0) break; // refill starting at this batch
        buf = await readExactly(handle, options.file, pos, sizeBytes); // bigger than a chunk
        bufAt = 0;
      }
      const batch = checkBatch(buf, bufAt, sizeBytes, pos + at, nextOffset, options);
      if (typeof batch === 'string') {
        pos += at;
        return stop(batch);
      }
      nextOffset = batch.lastOffset + 1;
      at += sizeBytes;
      if (onBatch(batch, buf, bufAt) === false) {
        pos += at;
        return stop(undefined, true);
      }
      if (buf !== chunk) break;
    }
    pos += at;
  }
  return stop();
}

/** Checks one batch whose size is known to fit; returns it or what is wrong with it. */
function checkBatch(
  buf: Buffer,
  at: number,
  sizeBytes: number,
  position: number,
  minBaseOffset: number,
  options: ScanOptions,
): ScannedBatch | string {
  const fault = batchContentFault(buf, at, sizeBytes, { crc: options.verifyCrc, offsets: 'sparse' });
  if (fault) return describeFramingFault(fault, 'batch');
  const baseOffset = Number(buf.readBigInt64BE(at + OFFSET_BASE_OFFSET));
  const lastOffsetDelta = buf.readInt32BE(at + OFFSET_LAST_OFFSET_DELTA);
  const recordCount = buf.readInt32BE(at + OFFSET_RECORD_COUNT);
  if (baseOffset < minBaseOffset || (options.contiguous && baseOffset !== minBaseOffset))
    return `baseOffset ${baseOffset}, expected ${options.contiguous ? '' : 'at least '}${minBaseOffset}`;
  const lastOffset = baseOffset + lastOffsetDelta;
  if (lastOffset - options.segmentBaseOffset > MAX_U32)
    return `last offset ${lastOffset} does not fit segment ${options.segmentBaseOffset}`;
  return {
    position,
    sizeBytes,
    baseOffset,
    lastOffset,
    lastOffsetDelta,
    maxTimestamp: Number(buf.readBigInt64BE(at + OFFSET_MAX_TIMESTAMP)),
    attributes: buf.readInt16BE(at + OFFSET_ATTRIBUTES),
    partitionLeaderEpoch: buf.readInt32BE(at + OFFSET_PARTITION_LEADER_EPOCH),
    producerId: Number(buf.readBigInt64BE(at + OFFSET_PRODUCER_ID)),
    producerEpoch: buf.readInt16BE(at + OFFSET_PRODUCER_EPOCH),
    baseSequence: buf.readInt32BE(at + OFFSET_BASE_SEQUENCE),
    recordCount,
  };
}
