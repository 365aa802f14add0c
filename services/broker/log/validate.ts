/**
 * Checks the RecordBatch v2 bytes of one append request before anything is assigned or written
 * (layout: services/common/records/layout.ts): the header, one CRC32C pass, then the records
 * section, decompressed, with the same structural check consumers run on every fetched batch
 * (services/common/records/record-section.ts), so nothing the broker acknowledges can fail a read.
 *
 * Rules, in the order they are checked for each batch:
 *   - framing (services/common/records/framing.ts): at least 12 bytes for baseOffset +
 *     batchLength, batch size (batchLength + 12) >= 61 and inside the request, else INVALID_RECORD;
 *     size <= maxMessageBytes, else MESSAGE_TOO_LARGE (checked before the CRC: no hashing of
 *     oversized input); magic == 2, else INVALID_RECORD; CRC32C matches, else CORRUPT_MESSAGE
 *     (retriable: the client resends); lastOffsetDelta >= 0 and recordCount == lastOffsetDelta + 1
 *     (batches from producers are never compacted, so their offsets are dense), else INVALID_RECORD
 *   - compression codec 0..4, else INVALID_RECORD; the control bit only with allowControl (the
 *     coordinator's markers, checked by controlTypeOf: transactional bit, one record, a known
 *     type), else INVALID_RECORD; the transactional bit only with a producer id, else INVALID_RECORD
 *   - producerId == -1, or producerId >= 0 with producerEpoch >= 0 and baseSequence >= 0 (or -1
 *     for a transactional batch with allowUnsequenced: a group coordinator's), else INVALID_RECORD
 *   - attribute bit 6 (delete horizon, set only by the cleaner) clear, else INVALID_RECORD
 *   - the records section decompresses with the batch's codec, to at most
 *     decompressedLimitBytes (64 MiB, or 64 times the batch's size when larger), and holds exactly recordCount
 *     records, each inside its length, with offset deltas increasing up to lastOffsetDelta and
 *     key, value and header lengths inside the record (checkRecordSection), else INVALID_RECORD
 *   - with requireKeys (compacted topics only): every record has a key, else INVALID_RECORD
 * and the request must be nothing but whole batches back to back, at least one.
 */
import { TideError, type ErrorCode } from '../../common/errors';
import {
  BATCH_HEADER_BYTES,
  CONTROL_BIT,
  CompressionCodec,
  NO_PRODUCER_ID,
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_SEQUENCE,
  OFFSET_LAST_OFFSET_DELTA,
  OFFSET_MAX_TIMESTAMP,
  OFFSET_PRODUCER_EPOCH,
  OFFSET_PRODUCER_ID,
  OFFSET_RECORD_COUNT,
  TRANSACTIONAL_BIT,
  compressionOf,
  readBatchHeader,
} from '../../common/records/layout';
import { batchFramingFault, describeFramingFault } from '../../common/records/framing';
import { decompress } from '../../common/records/compression';
import { checkRecordSection } from '../../common/records/record-section';
import { controlTypeOf, type ControlType } from '../../common/records/control';
import { DELETE_HORIZON_BIT } from './cleaner/batch-filter';
import { RecordCursor } from './cleaner/record-walk';

export interface ValidateOptions {
  /** Refuse records without a key (cleanup.policy includes compact). */
  requireKeys?: boolean;
  /** Accept control batches (transaction markers written for the coordinator), and only those. */
  allowControl?: boolean;
  /**
   * Accept transactional batches with baseSequence -1 (a group coordinator's transactional offset
   * commits, AppendOptions.origin 'group-coordinator').
   */
  allowUnsequenced?: boolean;
}

/** What the append path needs to know about one checked batch. */
export interface IncomingBatch {
  /** Where the batch starts in the request buffer. */
  position: number;
  sizeBytes: number;
  lastOffsetDelta: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  transactional: boolean;
  /** Set for a control batch: the marker it holds. */
  marker?: ControlType;
}

/** Checks every batch of a request; throws TideError on the first problem. */
export function validateBatches(
  request: Buffer,
  maxMessageBytes: number,
  options: ValidateOptions = {},
): IncomingBatch[] {
  if (request.length === 0) throw new TideError('INVALID_RECORD', 'append request holds no record batch');
  const batches: IncomingBatch[] = [];
  let at = 0;
  while (at < request.length) {
    batches.push(validateOne(request, at, batches.length, maxMessageBytes, options));
    at += batches[batches.length - 1].sizeBytes;
  }
  return batches;
}

function validateOne(
  buf: Buffer,
  at: number,
  index: number,
  maxMessageBytes: number,
  options: ValidateOptions,
): IncomingBatch {
  const requireKeys = options.requireKeys === true;
  const fail = (code: ErrorCode, why: string): never => {
    throw new TideError(code, `record batch ${index} at byte ${at}: ${why}`);
  };
  const framing = batchFramingFault(buf, at, { crc: true, offsets: 'dense', maxBytes: maxMessageBytes });
  if (typeof framing !== 'number') return fail(framing.code, describeFramingFault(framing, 'batch'));
  const sizeBytes = framing;
  const attributes = buf.readInt16BE(at + OFFSET_ATTRIBUTES);
  if (compressionOf(attributes) > CompressionCodec.Zstd)
    fail('INVALID_RECORD', `unknown compression codec ${compressionOf(attributes)}`);
  const control = (attributes & CONTROL_BIT) !== 0;
  const transactional = (attributes & TRANSACTIONAL_BIT) !== 0;
  if (control && !options.allowControl) fail('INVALID_RECORD', 'producers may not send control batches');
  if (!control && options.allowControl) fail('INVALID_RECORD', 'a marker append holds only control batches');
  if (control && !transactional) fail('INVALID_RECORD', 'a control batch must have the transactional bit');
  const lastOffsetDelta = buf.readInt32BE(at + OFFSET_LAST_OFFSET_DELTA);
  const recordCount = buf.readInt32BE(at + OFFSET_RECORD_COUNT);
  const producerId = Number(buf.readBigInt64BE(at + OFFSET_PRODUCER_ID));
  const producerEpoch = buf.readInt16BE(at + OFFSET_PRODUCER_EPOCH);
  const baseSequence = buf.readInt32BE(at + OFFSET_BASE_SEQUENCE);
  if (producerId < NO_PRODUCER_ID) fail('INVALID_RECORD', `invalid producerId ${producerId}`);
  if (transactional && producerId < 0)
    fail(
      'INVALID_RECORD',
      'a transactional batch needs a producer id (InitProducerId with a transactional id)',
    );
  const unsequenced = options.allowUnsequenced === true && transactional && baseSequence === -1;
  if (producerId >= 0 && !control && (producerEpoch < 0 || (baseSequence < 0 && !unsequenced))) {
    fail(
      'INVALID_RECORD',
      `idempotent batch (producerId ${producerId}) needs producerEpoch >= 0 and baseSequence >= 0, got ${producerEpoch} and ${baseSequence}`,
    );
  }
  if (attributes & DELETE_HORIZON_BIT)
    fail('INVALID_RECORD', 'attribute bit 6 (delete horizon) is set only by the log cleaner');
  const records = checkedRecords(buf, at, sizeBytes, compressionOf(attributes), fail);
  let marker: ControlType | undefined;
  if (control) {
    if (producerEpoch < 0) fail('INVALID_RECORD', `control batch with producerEpoch ${producerEpoch}`);
    try {
      marker = controlTypeOf(buf, at);
    } catch (err) {
      if (err instanceof TideError) fail('INVALID_RECORD', err.message);
      throw err;
    }
  }
  if (requireKeys) {
    const missing = firstRecordWithoutKey(records, recordCount, fail);
    if (missing !== undefined)
      fail(
        'INVALID_RECORD',
        `record ${missing} has no key: topics with cleanup.policy=compact need a key on every record`,
      );
  }
  return {
    position: at,
    sizeBytes,
    lastOffsetDelta,
    maxTimestamp: Number(buf.readBigInt64BE(at + OFFSET_MAX_TIMESTAMP)),
    producerId,
    producerEpoch,
    baseSequence,
    transactional,
    marker,
  };
}

/** Floor of the decompressed size a batch may reach (64 MiB), whatever its compressed size. */
export const DECOMPRESSED_RECORDS_MIN_LIMIT_BYTES = 64 * 1024 * 1024;
/** A batch may decompress to this many times its size, above the floor. */
export const DECOMPRESSION_RATIO_MAX = 64;

/**
 * How far the broker decompresses a batch to check it: a compression bomb (a 1 MiB gzip batch of
 * zeros claims a gigabyte) is INVALID_RECORD instead of a broker out of memory.
 */
export function decompressedLimitBytes(sizeBytes: number): number {
  return Math.max(DECOMPRESSED_RECORDS_MIN_LIMIT_BYTES, sizeBytes * DECOMPRESSION_RATIO_MAX);
}

/**
 * The batch's records section, decompressed and checked record by record exactly as a consumer
 * checks a fetched batch; any failure is INVALID_RECORD.
 */
function checkedRecords(
  buf: Buffer,
  at: number,
  sizeBytes: number,
  codec: CompressionCodec,
  fail: (code: ErrorCode, why: string) => never,
): Buffer {
  try {
    const records = decompress(
      codec,
      buf.subarray(at + BATCH_HEADER_BYTES, at + sizeBytes),
      decompressedLimitBytes(sizeBytes),
    );
    checkRecordSection(records, readBatchHeader(buf, at), at);
    return records;
  } catch (err) {
    if (err instanceof TideError) return fail('INVALID_RECORD', `unreadable records: ${err.message}`);
    throw err;
  }
}

/** Index of the first record with a null key, undefined when every record has one. */
function firstRecordWithoutKey(
  records: Buffer,
  recordCount: number,
  fail: (code: ErrorCode, why: string) => never,
): number | undefined {
  try {
    const cursor = new RecordCursor(records, 0, records.length, recordCount);
    while (cursor.next()) if (cursor.keyLength < 0) return cursor.index - 1;
    return undefined;
  } catch (err) {
    if (err instanceof TideError) return fail('INVALID_RECORD', `cannot check record keys: ${err.message}`);
    throw err;
  }
}
