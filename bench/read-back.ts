import type { Consumer } from '../client';

/**
 * How a benchmark reads: `records` builds every record object and reads its value (what an
 * application that handles records one by one pays, and what peers' clients do); `batches` only
 * counts the records of checked batches (a pipeline that forwards or archives batches).
 */
export type ReadMode = 'records' | 'batches';

/** Reads from the consumer's assignment until `count` records have come back; returns how many did. */
export async function readBack(
  consumer: Consumer,
  count: number,
  mode: ReadMode = 'records',
): Promise<number> {
  let consumed = 0;
  let valueBytes = 0;
  for await (const batch of consumer.batches()) {
    if (mode === 'records') {
      for (const record of batch.records) valueBytes += record.value?.length ?? 0;
    }
    consumed += batch.recordCount;
    if (consumed >= count) break;
  }
  if (mode === 'records' && consumed > 0 && valueBytes === 0) throw new Error('read back only empty values');
  return consumed;
}
