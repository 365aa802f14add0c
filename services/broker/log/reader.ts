/**
 * The read side of a segment: whole batches from the one holding an offset (one file read in the
 * common case), and the first batch at or after a timestamp. Every batch handed out passes its
 * CRC32C check; anything malformed on disk is a TideError KAFKA_STORAGE_ERROR naming the file and
 * byte position, never served and never skipped silently.
 */
import {
  CompressionCodec,
  BATCH_HEADER_BYTES,
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_OFFSET,
  OFFSET_LAST_OFFSET_DELTA,
  TIMESTAMP_TYPE_BIT,
  batchCrcIsValid,
  compressionOf,
} from '../../common/records/layout';
import { batchContentFault, batchSizeFault, describeFramingFault } from '../../common/records/framing';
import { scanBatches, type ScannedBatch } from './batch-scan';
import { readExactly, readFully, storageError } from './fs-util';
import { allocateWithHeadroom } from './headroom';
import { firstRecordAtOrAfter } from './record-timestamps';
import type { LogSegment } from './segment';

/** Extra bytes read after maxBytes so the first read usually also covers the walk from the index entry. */
const READ_SLACK_BYTES = 16 * 1024;

export interface SegmentRead {
  /** Whole batches; empty when the first candidate starts at or above maxOffset. */
  batches: Buffer;
  nextOffset: number;
}

interface Header {
  sizeBytes: number;
  baseOffset: number;
  lastOffset: number;
}

/** The framing of the batch at buf[at] (61 bytes must be there), or what is wrong with it. */
function headerAt(buf: Buffer, at: number, position: number, fileEnd: number): Header | string {
  const sizeBytes = batchSizeFault(buf, at, fileEnd - position);
  const fault =
    typeof sizeBytes === 'number'
      ? batchContentFault(buf, at, sizeBytes, { crc: false, offsets: 'delta' })
      : sizeBytes;
  if (fault) return `corrupt batch: ${describeFramingFault(fault, 'batch')}`;
  const baseOffset = Number(buf.readBigInt64BE(at + OFFSET_BASE_OFFSET));
  return {
    sizeBytes: sizeBytes as number,
    baseOffset,
    lastOffset: baseOffset + buf.readInt32BE(at + OFFSET_LAST_OFFSET_DELTA),
  };
}

/**
 * Whole batches of `segment` starting with the first whose last offset is >= `offset`, up to
 * maxBytes (at least one), none starting at or above maxOffset. Undefined when the segment has no
 * batch at or after `offset`.
 */
export async function readSegment(
  segment: LogSegment,
  offset: number,
  maxBytes: number,
  maxOffset: number,
): Promise<SegmentRead | undefined> {
  const end = segment.sizeBytes;
  const file = segment.logFile;
  let bufPos = segment.offsetIndex.lookup(offset).position;
  if (bufPos >= end) return undefined;
  const budget = Math.max(maxBytes, 0);
  let buf = await read(
    segment,
    bufPos,
    Math.min(end - bufPos, budget + segment.indexIntervalBytes + READ_SLACK_BYTES),
  );

  // Walk headers to the batch holding `offset`.
  let p = 0;
  let first: Header;
  for (;;) {
    if (bufPos + p >= end) return undefined;
    if (p + BATCH_HEADER_BYTES > buf.length) {
      bufPos += p;
      p = 0;
      buf = await read(
        segment,
        bufPos,
        Math.min(end - bufPos, Math.max(budget, BATCH_HEADER_BYTES) + READ_SLACK_BYTES),
      );
      continue;
    }
    const header = headerAt(buf, p, bufPos + p, end);
    if (typeof header === 'string') throw storageError(header, file, bufPos + p);
    if (header.lastOffset >= offset) {
      first = header;
      break;
    }
    p += header.sizeBytes;
  }
  if (first.baseOffset >= maxOffset) return { batches: Buffer.alloc(0), nextOffset: offset };
  if (p + Math.max(first.sizeBytes, Math.min(budget, end - bufPos - p)) > buf.length) {
    bufPos += p;
    p = 0;
    buf = await read(segment, bufPos, Math.min(end - bufPos, Math.max(first.sizeBytes, budget)));
  }
  if (!batchCrcIsValid(buf, p, first.sizeBytes))
    throw storageError('corrupt batch: crc mismatch', file, bufPos + p);

  // Take following whole batches while they fit; stop before anything suspect (a later read reports it).
  const start = p;
  let q = p + first.sizeBytes;
  let nextOffset = first.lastOffset + 1;
  while (q + BATCH_HEADER_BYTES <= buf.length && bufPos + q < end) {
    const header = headerAt(buf, q, bufPos + q, end);
    if (typeof header === 'string') break;
    if (
      header.baseOffset >= maxOffset ||
      q + header.sizeBytes > buf.length ||
      q + header.sizeBytes - start > budget
    )
      break;
    if (!batchCrcIsValid(buf, q, header.sizeBytes)) break;
    q += header.sizeBytes;
    nextOffset = header.lastOffset + 1;
  }
  return { batches: buf.subarray(start, q), nextOffset };
}

async function read(segment: LogSegment, position: number, length: number): Promise<Buffer> {
  const buf = allocateWithHeadroom(length);
  const got = await readFully(segment.file, buf, length, position);
  if (got !== length) throw storageError(`short read (${got} of ${length} bytes)`, segment.logFile, position);
  return buf;
}

export interface TimestampHit {
  offset: number;
  /** The batch's maxTimestamp. */
  timestampMs: number;
}

/**
 * The first offset in `segment` at or above minOffset whose batch has maxTimestamp >= timestampMs:
 * record-exact for uncompressed CreateTime batches (the first record of that batch with a timestamp
 * >= timestampMs), else the batch's base offset. Undefined when no batch qualifies.
 */
export async function findByTimestamp(
  segment: LogSegment,
  timestampMs: number,
  minOffset: number,
): Promise<TimestampHit | undefined> {
  const end = segment.sizeBytes;
  const entry = segment.timeIndex.lastEntryBefore(timestampMs);
  const from = entry ? segment.offsetIndex.lookup(entry.offset) : { offset: segment.baseOffset, position: 0 };
  let hit: ScannedBatch | undefined;
  const scan = await scanBatches(
    segment.file,
    from.position,
    end,
    {
      verifyCrc: false,
      segmentBaseOffset: segment.baseOffset,
      minBaseOffset: from.offset,
      file: segment.logFile,
    },
    (b) => {
      // Empty batches (headers a compacted log keeps) hold no record to land on.
      if (b.maxTimestamp < timestampMs || b.lastOffset < minOffset || b.recordCount === 0) return true;
      hit = b;
      return false;
    },
  );
  if (!hit) {
    if (scan.invalid) throw storageError(`corrupt batch: ${scan.invalid}`, segment.logFile, scan.endPosition);
    return undefined;
  }
  const bytes = await readExactly(segment.file, segment.logFile, hit.position, hit.sizeBytes);
  if (!batchCrcIsValid(bytes, 0, hit.sizeBytes))
    throw storageError('corrupt batch: crc mismatch', segment.logFile, hit.position);
  let offset = hit.baseOffset;
  const attributes = bytes.readInt16BE(OFFSET_ATTRIBUTES);
  if (compressionOf(attributes) === CompressionCodec.None && (attributes & TIMESTAMP_TYPE_BIT) === 0) {
    const delta = firstRecordAtOrAfter(bytes, 0, timestampMs);
    if (delta !== undefined) offset = hit.baseOffset + delta;
  }
  return { offset: Math.max(offset, minOffset), timestampMs: hit.maxTimestamp };
}
