/**
 * Checks of a follower append (PartitionLog.appendAsFollower): batches copied from the leader,
 * which already carry their offsets and partitionLeaderEpoch and are stored exactly as they are.
 * Unlike a producer's append nothing is assigned or patched, and the topic's max.message.bytes is
 * not applied (the leader accepted the batch; a follower must store whatever its leader stores).
 *
 * Rules, for each batch in order:
 *   - framing (services/common/records/framing.ts): at least 12 bytes, size (batchLength + 12)
 *     >= 61 and inside the request, magic 2; CRC32C matches, else CORRUPT_MESSAGE (retriable: the
 *     follower fetches again); lastOffsetDelta >= 0 and 0 <= recordCount <= lastOffsetDelta + 1
 *     (compacted batches have fewer records than offsets);
 *   - partitionLeaderEpoch >= 0 (a leader stamps every batch) and never below the previous batch's;
 *   - offsets: the first batch starts at the log end offset and each next one right after the
 *     previous one (contiguous); for a compacted log a batch may start later (compaction removed
 *     whole batches on the leader) but never earlier.
 * Anything else is INVALID_RECORD; nothing is written then.
 */
import { TideError, type ErrorCode } from '../../common/errors';
import {
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_OFFSET,
  OFFSET_BASE_SEQUENCE,
  OFFSET_LAST_OFFSET_DELTA,
  OFFSET_MAX_TIMESTAMP,
  OFFSET_PARTITION_LEADER_EPOCH,
  OFFSET_PRODUCER_EPOCH,
  OFFSET_PRODUCER_ID,
} from '../../common/records/layout';
import { batchFramingFault, describeFramingFault } from '../../common/records/framing';
import { controlTypeOf, isControl, isTransactional } from '../../common/records/control';
import type { IncomingBatch } from './validate';

/** One checked batch of a follower append. */
export interface FollowerBatch extends IncomingBatch {
  baseOffset: number;
  lastOffset: number;
  partitionLeaderEpoch: number;
}

/**
 * Checks every batch of a follower append that must start at `logEndOffset`; throws TideError on
 * the first problem. `contiguous` is false for compacted logs.
 */
export function validateFollowerBatches(
  request: Buffer,
  logEndOffset: number,
  contiguous: boolean,
): FollowerBatch[] {
  if (request.length === 0) throw new TideError('INVALID_RECORD', 'follower append holds no record batch');
  const batches: FollowerBatch[] = [];
  let at = 0;
  let nextOffset = logEndOffset;
  let epoch = 0;
  while (at < request.length) {
    const batch = checkOne(request, at, batches.length, nextOffset, epoch, contiguous);
    batches.push(batch);
    at += batch.sizeBytes;
    nextOffset = batch.lastOffset + 1;
    epoch = batch.partitionLeaderEpoch;
  }
  return batches;
}

function checkOne(
  buf: Buffer,
  at: number,
  index: number,
  expectedOffset: number,
  minEpoch: number,
  contiguous: boolean,
): FollowerBatch {
  const fail = (code: ErrorCode, why: string): never => {
    throw new TideError(code, `replicated batch ${index} at byte ${at}: ${why}`);
  };
  const framing = batchFramingFault(buf, at, { crc: true, offsets: 'sparse' });
  if (typeof framing !== 'number') return fail(framing.code, describeFramingFault(framing, 'batch'));
  const sizeBytes = framing;
  const lastOffsetDelta = buf.readInt32BE(at + OFFSET_LAST_OFFSET_DELTA);
  const partitionLeaderEpoch = buf.readInt32BE(at + OFFSET_PARTITION_LEADER_EPOCH);
  if (partitionLeaderEpoch < 0) fail('INVALID_RECORD', 'no partitionLeaderEpoch stamped by the leader');
  if (partitionLeaderEpoch < minEpoch) {
    fail('INVALID_RECORD', `partitionLeaderEpoch ${partitionLeaderEpoch} after a batch of epoch ${minEpoch}`);
  }
  const baseOffset = Number(buf.readBigInt64BE(at + OFFSET_BASE_OFFSET));
  if (baseOffset < expectedOffset || (contiguous && baseOffset !== expectedOffset)) {
    fail(
      'INVALID_RECORD',
      `baseOffset ${baseOffset}, expected ${contiguous ? '' : 'at least '}${expectedOffset}`,
    );
  }
  const attributes = buf.readInt16BE(at + OFFSET_ATTRIBUTES);
  let marker: FollowerBatch['marker'];
  if (isControl(attributes)) {
    try {
      marker = controlTypeOf(buf, at);
    } catch (err) {
      if (err instanceof TideError) fail('INVALID_RECORD', err.message);
      throw err;
    }
  }
  return {
    position: at,
    sizeBytes,
    baseOffset,
    transactional: isTransactional(attributes),
    marker,
    lastOffset: baseOffset + lastOffsetDelta,
    lastOffsetDelta,
    partitionLeaderEpoch,
    maxTimestamp: Number(buf.readBigInt64BE(at + OFFSET_MAX_TIMESTAMP)),
    producerId: Number(buf.readBigInt64BE(at + OFFSET_PRODUCER_ID)),
    producerEpoch: buf.readInt16BE(at + OFFSET_PRODUCER_EPOCH),
    baseSequence: buf.readInt32BE(at + OFFSET_BASE_SEQUENCE),
  };
}
