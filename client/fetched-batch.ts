import type { CheckedRecords } from '../services/common/records';
import type { ConsumerBatch } from './types';

/**
 * A ConsumerBatch over checked fetched bytes. `records` is an own, enumerable getter that builds
 * the record objects on its first read (a spread or JSON copy of the batch builds them then).
 */
export function fetchedBatch(
  topic: string,
  partition: number,
  checked: CheckedRecords,
  highWatermark: number,
  nextOffset: number,
): ConsumerBatch {
  return {
    topic,
    partition,
    get records() {
      return checked.records();
    },
    recordCount: checked.count,
    recordBatches: checked.bytes,
    highWatermark,
    nextOffset,
  };
}
