/**
 * Client-side reading of fetched RecordBatch bytes (RECORD_FORMAT_BATCHES).
 *
 * A response holds whole batches as stored; the first may start before the requested offset
 * (its earlier records are skipped) and the last may be cut short (a partial trailing batch is
 * ignored and fetched again from its base offset).
 */
import { TideError } from '../services/common/errors';
import {
  decodeRecords,
  lastOffsetOf,
  readBatchHeader,
  splitBatches,
  type DecodedRecord,
} from '../services/common/records';

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
  const partialBaseOffset = trailingBytes >= 8 ? Number(buf.readBigInt64BE(completeBytes)) : undefined;
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
 * Decodes the records at or after `fromOffset` (CRC-checked; control batches skipped). When a
 * batch fails its check, the records of the batches before it are still returned, with the error
 * and the offset to fetch again from (`stopOffset`), as Kafka's consumer does.
 */
export function decodeFetched(
  complete: Buffer,
  fromOffset: number,
  context: { topic: string; partition: number },
): { records: DecodedRecord[]; error?: TideError; stopOffset?: number } {
  try {
    return { records: decodeRecords(complete, fromOffset) };
  } catch (err) {
    if (!(err instanceof TideError)) throw err;
  }
  const records: DecodedRecord[] = [];
  for (const { at, sizeBytes } of splitBatches(complete).batches) {
    try {
      const decoded = decodeRecords(complete.subarray(at, at + sizeBytes), fromOffset);
      for (let i = 0; i < decoded.length; i++) records.push(decoded[i]);
    } catch (err) {
      if (!(err instanceof TideError)) throw err;
      const error = new TideError(err.code, `${context.topic}/${context.partition}: ${err.message}`, {
        cause: err,
        retriable: err.retriable,
        context: { ...context, ...err.context },
      });
      return { records, error, stopOffset: Math.max(fromOffset, readBatchHeader(complete, at).baseOffset) };
    }
  }
  return { records };
}
