import type { Consumer } from '../client';

/** Reads batches from the consumer's assignment until `count` records have come back; returns how many did. */
export async function readBack(consumer: Consumer, count: number): Promise<number> {
  let consumed = 0;
  for await (const batch of consumer.batches()) {
    consumed += batch.records.length;
    if (consumed >= count) break;
  }
  return consumed;
}
