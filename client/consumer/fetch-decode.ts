/**
 * Client-side reading of fetched RecordBatch bytes (RECORD_FORMAT_BATCHES).
 *
 * A response holds whole batches as stored; the first may start before the requested offset
 * (its earlier records are skipped) and the last may be cut short (a partial trailing batch is
 * ignored and fetched again from its base offset).
 */
import { TideError } from '../../services/common/errors';
import type { IsolationLevel as WireIsolationLevel } from '../../services/common/grpc/generated/tide/v1/IsolationLevel';
import {
  checkBatches,
  type AbortedTransaction,
  lastOffsetOf,
  readBatchHeader,
  splitBatches,
  type CheckedRecords,
} from '../../services/common/records';

/**
 * Which records a consumer reads: 'read_uncommitted' (default, as Kafka) everything below the high
 * watermark; 'read_committed' only committed transactional records, below the last stable offset.
 */
export type IsolationLevel = 'read_uncommitted' | 'read_committed';

/** Checks the option; INVALID_REQUEST names the two values. */
export function requireIsolation(value: unknown): IsolationLevel {
  if (value === undefined) return 'read_uncommitted';
  if (value === 'read_uncommitted' || value === 'read_committed') return value;
  throw new TideError(
    'INVALID_REQUEST',
    `isolation must be 'read_uncommitted' or 'read_committed', not ${JSON.stringify(value)}`,
  );
}

export function wireIsolation(level: IsolationLevel): WireIsolationLevel {
  return level === 'read_committed' ? 'ISOLATION_LEVEL_READ_COMMITTED' : 'ISOLATION_LEVEL_READ_UNCOMMITTED';
}

/** A response's aborted transactions (read_committed), for checkFetched; undefined when none. */
export function abortedOf(response: {
  aborted_transactions?: ReadonlyArray<{ producer_id: number | string; first_offset: number | string }>;
}): AbortedTransaction[] | undefined {
  const list = response.aborted_transactions;
  if (!list || list.length === 0) return undefined;
  return list.map((t) => ({ producerId: Number(t.producer_id), firstOffset: Number(t.first_offset) }));
}

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
 * skipped, and with `aborted` the records of those aborted transactions: a read_committed
 * response's AbortedFilter) of `complete`, the whole batches of a response (`splitFetched`);
 * record objects are built when asked for. When a batch fails, the batches before it are still returned, with the
 * error and the offset to fetch again from (`stopOffset`), as Kafka's consumer does.
 */
export function checkFetched(
  complete: Buffer,
  fromOffset: number,
  context: { topic: string; partition: number },
  aborted?: readonly AbortedTransaction[],
): { checked: CheckedRecords; error?: TideError; stopOffset?: number } {
  const { checked, error, failedAt } = checkBatches(complete, fromOffset, aborted);
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
