/**
 * Client-side reading of fetched RecordBatch bytes (RECORD_FORMAT_BATCHES).
 *
 * A response holds whole batches as stored; the first may start before the requested offset
 * (its earlier records are skipped) and the last may be cut short (a partial trailing batch is
 * ignored and fetched again from its base offset).
 */
import { TideError } from '../../services/common/errors';
import {
  checkBatches,
  lastOffsetOf,
  readBatchHeader,
  splitBatches,
  type CheckedRecords,
} from '../../services/common/records';

export interface FetchedBytes {
  /** The complete batches (a view into the response). */
  complete: Buffer;
  /** Offset after the last complete batch; undefined when there is none. */
  completeEndOffset: number | undefined;
  /** Bytes of a cut-off last batch (0 when none). */
  trailingBytes: number;
  /** Base offset of the cut-off batch when enough of its header arrived (8 bytes). */
  partialBaseOffset: number | undefined;
}

/** Splits fetched bytes into complete batches and a partial tail. Checks sizes only. */
export function splitFetched(buf: Buffer): FetchedBytes {
  const { batches, trailingBytes } = splitBatches(buf);
  const last = batches[batches.length - 1];
  const completeBytes = last ? last.at + last.sizeBytes : 0;
  const completeEndOffset = last ? lastOffsetOf(readBatchHeader(buf, last.at)) + 1 : undefined;
  const partialBaseOffset = baseOffsetAt(buf, completeBytes);
  return { complete: buf.subarray(0, completeBytes), completeEndOffset, trailingBytes, partialBaseOffset };
}

/**
 * Where to fetch next after a response for `requestedOffset`: the broker's next_offset, unless a
 * partial trailing batch was dropped, in which case its base offset (`truncated` is then true
 * when the broker's next_offset had moved past it, i.e. a stream would skip records).
 */
export function nextFetchOffset(
  fetched: FetchedBytes,
  brokerNextOffset: number,
  requestedOffset: number,
): { nextOffset: number; truncated: boolean } {
  if (fetched.trailingBytes === 0) {
    return {
      nextOffset: Math.max(brokerNextOffset, fetched.completeEndOffset ?? requestedOffset),
      truncated: false,
    };
  }
  const safe = fetched.partialBaseOffset ?? fetched.completeEndOffset ?? requestedOffset;
  const resume = Math.max(safe, requestedOffset);
  return { nextOffset: Math.min(brokerNextOffset, resume), truncated: brokerNextOffset > resume };
}

/**
 * Checks the records at or after `fromOffset` (CRC, layout, every record; control batches
 * skipped) of `complete`, the whole batches of a response (`splitFetched`); record objects are
 * built when asked for. When a batch fails, the batches before it are still returned, with the
 * error and the offset to fetch again from (`stopOffset`), as Kafka's consumer does.
 */
export function checkFetched(
  complete: Buffer,
  fromOffset: number,
  context: { topic: string; partition: number },
): { checked: CheckedRecords; error?: TideError; stopOffset?: number } {
  const { checked, error, failedAt } = checkBatches(complete, fromOffset);
  if (!error) return { checked };
  return {
    checked,
    error: new TideError(error.code, `${context.topic}/${context.partition}: ${error.message}`, {
      cause: error,
      retriable: error.retriable,
      context: { ...context, ...error.context },
    }),
    stopOffset: Math.max(fromOffset, baseOffsetAt(complete, failedAt as number) ?? fromOffset),
  };
}

/** The base offset of the batch at `at`, when its first 8 bytes are there. */
function baseOffsetAt(buf: Buffer, at: number): number | undefined {
  return buf.length - at >= 8 ? Number(buf.readBigInt64BE(at)) : undefined;
}
