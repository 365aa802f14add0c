/**
 * Whether a sink record can be written to its topic at all: a record whose batch alone would be
 * larger than the topic's max.message.bytes is refused by the broker every time it is sent, and
 * the producer's failure would stop the application, again after every restart. The runtime
 * checks each record as it is produced instead, so the failure is the record's processing error
 * (processingErrors decides: fail naming the input record, skip it, or dead-letter it).
 *
 * The size is that of a batch holding only this record, uncompressed (Kafka's RecordBatch v2, as
 * the runtime's producer writes it): the producer starts a new batch rather than overflow one, so a
 * record that fits alone is never refused for its size.
 */
import { StreamsError } from '../errors';
import type { OutgoingRecord } from './internal-context';

/** Batch header: base offset, length, leader epoch, magic, CRC, ..., record count (with the 12-byte log overhead). */
const BATCH_HEADER_BYTES = 61;
/**
 * At least what a single-record batch adds to its key and value bytes: the header, the record's
 * length, attributes, deltas, key and value lengths and header count (varints of at most 5 bytes).
 */
const ROUGH_OVERHEAD_BYTES = BATCH_HEADER_BYTES + 5 + 1 + 2 + 5 + 5 + 5;

function varintBytes(n: number): number {
  // Zigzag, then 7 bits a byte.
  let v = n >= 0 ? n * 2 : -n * 2 - 1;
  let bytes = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    bytes++;
  }
  return bytes;
}

function fieldBytes(b: Buffer | null): number {
  return b === null ? varintBytes(-1) : varintBytes(b.length) + b.length;
}

/** Bytes of a batch holding only `record`, uncompressed. */
export function singleRecordBatchBytes(record: Pick<OutgoingRecord, 'key' | 'value' | 'headers'>): number {
  let body = 1 + varintBytes(0) + varintBytes(0); // attributes, timestamp delta, offset delta
  body += fieldBytes(record.key) + fieldBytes(record.value);
  body += varintBytes(record.headers.length);
  for (const h of record.headers) {
    const key = Buffer.byteLength(h.key, 'utf8');
    body += varintBytes(key) + key + fieldBytes(h.value);
  }
  return BATCH_HEADER_BYTES + varintBytes(body) + body;
}

/**
 * Throws a StreamsError ('RECORD_TOO_LARGE') when `record` cannot fit `maxMessageBytes`
 * (its topic's max.message.bytes). An upper bound first, so ordinary records cost one comparison.
 */
export function checkRecordFits(record: OutgoingRecord, maxMessageBytes: number): void {
  let rough = ROUGH_OVERHEAD_BYTES + (record.key?.length ?? 0) + (record.value?.length ?? 0);
  // A UTF-16 unit is at most 3 UTF-8 bytes; two varints of at most 5 bytes each.
  for (const h of record.headers) rough += h.key.length * 3 + (h.value?.length ?? 0) + 10;
  if (rough <= maxMessageBytes) return;
  const bytes = singleRecordBatchBytes(record);
  if (bytes <= maxMessageBytes) return;
  throw new StreamsError(
    'RECORD_TOO_LARGE',
    `a record of ${bytes} bytes for topic ${record.topic} exceeds its max.message.bytes (${maxMessageBytes}): ` +
      `make it smaller, raise the topic's max.message.bytes, or set processingErrors to 'continue' or { deadLetterTopic } to skip such records`,
  );
}
