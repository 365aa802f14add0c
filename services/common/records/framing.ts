/**
 * The framing checks of one RecordBatch v2, in one place for everything that reads batches: the
 * produce validator and the follower append (services/broker/log/validate.ts,
 * follower-append.ts), the segment scanner and readers (batch-scan.ts, reader.ts, the cleaner's
 * segment reader) and the codec (codec.ts). Each caller says which checks it wants and turns a
 * fault into its own error (a TideError, a storage error naming the file, a scan's stop reason).
 *
 * In the order they are checked:
 *   1. size (`batchSizeFault`): at least 12 bytes (baseOffset + batchLength), size = batchLength +
 *      12 at least the 61-byte header, size inside the bytes available, size <= maxBytes when given;
 *   2. content (`batchContentFault`, once the whole batch is in memory): magic 2, the CRC32C when
 *      asked, then the offsets as asked (`OffsetRule`): lastOffsetDelta >= 0 and how recordCount
 *      relates to it. The CRC comes before the offsets, so a flipped bit is reported as corruption.
 * `batchFramingFault` runs both on a batch that is wholly in the buffer.
 *
 * Faults are plain values (no exception, no message built) so that a scan stopping at a torn tail
 * costs nothing; `describeFramingFault` words one for a message.
 */
import {
  BATCH_HEADER_BYTES,
  LOG_OVERHEAD_BYTES,
  MAGIC_V2,
  OFFSET_BATCH_LENGTH,
  OFFSET_CRC,
  OFFSET_LAST_OFFSET_DELTA,
  OFFSET_MAGIC,
  OFFSET_RECORD_COUNT,
  computeBatchCrc,
} from './layout';

/** What is wrong with a batch's framing; `code` is the error a producer or consumer gets for it. */
export type FramingFault =
  /** Fewer than the 12 bytes that give a batch its length. */
  | { kind: 'short'; code: 'INVALID_RECORD'; available: number }
  /** batchLength + 12 is less than the 61-byte header. */
  | { kind: 'undersized'; code: 'INVALID_RECORD'; sizeBytes: number }
  /** The batch runs past the bytes available. */
  | { kind: 'overrun'; code: 'INVALID_RECORD'; sizeBytes: number; available: number }
  | { kind: 'too-large'; code: 'MESSAGE_TOO_LARGE'; sizeBytes: number; maxBytes: number }
  | { kind: 'magic'; code: 'INVALID_RECORD'; magic: number }
  | { kind: 'crc'; code: 'CORRUPT_MESSAGE'; stored: number; computed: number }
  | { kind: 'last-offset-delta'; code: 'INVALID_RECORD'; lastOffsetDelta: number }
  | {
      kind: 'record-count';
      code: 'INVALID_RECORD';
      recordCount: number;
      lastOffsetDelta: number;
      dense: boolean;
    };

/**
 * What the offsets must satisfy: `dense`, a producer's batch: lastOffsetDelta >= 0 and one record
 * per offset (recordCount == lastOffsetDelta + 1); `sparse`, a stored batch, which compaction may
 * have thinned: lastOffsetDelta >= 0 and 0 <= recordCount <= lastOffsetDelta + 1; `delta`:
 * lastOffsetDelta >= 0 only (the codec checks each record's offset delta itself); `unchecked`:
 * nothing (a walk of headers that reports corruption only once the CRC is checked).
 */
export type OffsetRule = 'dense' | 'sparse' | 'delta' | 'unchecked';

export interface FramingChecks {
  /** Verify the CRC32C (a header-only walk skips it). */
  crc: boolean;
  offsets: OffsetRule;
}

/**
 * The size of the batch at `at`, or what is wrong with its framing. `available` is how many bytes
 * the batch may span from `at` (to the end of the request, the region of a file, the buffer);
 * `buf` must hold min(12, available) of them. `maxBytes` caps the size (a topic's
 * max.message.bytes); it is checked last so that a cap never hides a malformed length.
 */
export function batchSizeFault(
  buf: Buffer,
  at: number,
  available: number,
  maxBytes = Infinity,
): number | FramingFault {
  if (available < LOG_OVERHEAD_BYTES) return { kind: 'short', code: 'INVALID_RECORD', available };
  const sizeBytes = buf.readInt32BE(at + OFFSET_BATCH_LENGTH) + LOG_OVERHEAD_BYTES;
  if (sizeBytes < BATCH_HEADER_BYTES) return { kind: 'undersized', code: 'INVALID_RECORD', sizeBytes };
  if (sizeBytes > available) return { kind: 'overrun', code: 'INVALID_RECORD', sizeBytes, available };
  if (sizeBytes > maxBytes) return { kind: 'too-large', code: 'MESSAGE_TOO_LARGE', sizeBytes, maxBytes };
  return sizeBytes;
}

/**
 * The content checks of a batch of `sizeBytes` (from `batchSizeFault`) wholly inside `buf` at
 * `at`; undefined when it passes.
 */
export function batchContentFault(
  buf: Buffer,
  at: number,
  sizeBytes: number,
  checks: FramingChecks,
): FramingFault | undefined {
  const magic = buf.readInt8(at + OFFSET_MAGIC);
  if (magic !== MAGIC_V2) return { kind: 'magic', code: 'INVALID_RECORD', magic };
  if (checks.crc) {
    const computed = computeBatchCrc(buf, at, sizeBytes);
    const stored = buf.readUInt32BE(at + OFFSET_CRC);
    if (computed !== stored) return { kind: 'crc', code: 'CORRUPT_MESSAGE', stored, computed };
  }
  if (checks.offsets === 'unchecked') return undefined;
  const lastOffsetDelta = buf.readInt32BE(at + OFFSET_LAST_OFFSET_DELTA);
  if (lastOffsetDelta < 0) return { kind: 'last-offset-delta', code: 'INVALID_RECORD', lastOffsetDelta };
  if (checks.offsets !== 'delta') {
    const recordCount = buf.readInt32BE(at + OFFSET_RECORD_COUNT);
    const dense = checks.offsets === 'dense';
    if (dense ? recordCount !== lastOffsetDelta + 1 : recordCount < 0 || recordCount > lastOffsetDelta + 1)
      return { kind: 'record-count', code: 'INVALID_RECORD', recordCount, lastOffsetDelta, dense };
  }
  return undefined;
}

/**
 * Both checks on the batch at `at`, which may span the rest of `buf` (`end` = buf.length) or
 * less: its size, or what is wrong with it.
 */
export function batchFramingFault(
  buf: Buffer,
  at: number,
  checks: FramingChecks & { maxBytes?: number },
  end = buf.length,
): number | FramingFault {
  const size = batchSizeFault(buf, at, end - at, checks.maxBytes);
  if (typeof size !== 'number') return size;
  return batchContentFault(buf, at, size, checks) ?? size;
}

/** The fault in words; `batch` names the batch (e.g. "batch at byte 12", "record batch 2 at byte 0"). */
export function describeFramingFault(fault: FramingFault, batch: string): string {
  switch (fault.kind) {
    case 'short':
      return `truncated ${batch}: ${fault.available} trailing bytes are not a batch`;
    case 'undersized':
      return `${batch} claims ${fault.sizeBytes} bytes, less than its header (${BATCH_HEADER_BYTES} bytes)`;
    case 'overrun':
      return `truncated ${batch}: it claims ${fault.sizeBytes} bytes, ${fault.available} left`;
    case 'too-large':
      return `${batch} has ${fault.sizeBytes} bytes, above max.message.bytes ${fault.maxBytes}`;
    case 'magic':
      return `${batch} has magic ${fault.magic}; only RecordBatch v2 (magic 2) is supported`;
    case 'crc':
      return `${batch} failed its CRC32C check: stored 0x${hex32(fault.stored)}, computed 0x${hex32(fault.computed)}`;
    case 'last-offset-delta':
      return `${batch} has a negative lastOffsetDelta ${fault.lastOffsetDelta}`;
    case 'record-count':
      return fault.dense
        ? `${batch} has recordCount ${fault.recordCount} != lastOffsetDelta ${fault.lastOffsetDelta} + 1`
        : `${batch} has recordCount ${fault.recordCount} with lastOffsetDelta ${fault.lastOffsetDelta}`;
  }
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0');
}
