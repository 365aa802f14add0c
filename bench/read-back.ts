import type { Consumer, ConsumerBatch } from '../client';

/**
 * How a benchmark reads: `records` builds every record object and reads its value (what an
 * application that handles records one by one pays, and what peers' clients do); `batches` only
 * counts the records of checked batches (a pipeline that forwards or archives batches).
 */
export type ReadMode = 'records' | 'batches';

/**
 * The per-record work lives in its own small function, optimized like any other: inside the
 * long-running loop below it was optimized only by on-stack replacement, and a second readBack
 * in the same process (the next case of a benchmark) ran it unoptimized throughout, at 30-40 % of
 * the first one's rate with twice the CPU per record (seen in both the partitions sweep and
 * bench:peers, whichever case came second).
 */
function valueBytesOf(batch: ConsumerBatch): number {
  let bytes = 0;
  for (const record of batch.records) bytes += record.value?.length ?? 0;
  return bytes;
}

/** Reads from the consumer's assignment until `count` records have come back; returns how many did. */
export async function readBack(
  consumer: Consumer,
  count: number,
  mode: ReadMode = 'records',
): Promise<number> {
  let consumed = 0;
  let valueBytes = 0;
  for await (const batch of consumer.batches()) {
    if (mode === 'records') valueBytes += valueBytesOf(batch);
    consumed += batch.recordCount;
    if (consumed >= count) break;
  }
  if (mode === 'records' && consumed > 0 && valueBytes === 0) throw new Error('read back only empty values');
  return consumed;
}
