import type { CheckedRecords, DecodedRecord } from '../services/common/records';
import type { ConsumerBatch } from './types';

/** A ConsumerBatch over checked fetched bytes: record objects are built on the first read of `records`. */
export class FetchedBatch implements ConsumerBatch {
  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly checked: CheckedRecords,
    readonly highWatermark: number,
    readonly nextOffset: number,
  ) {}

  get records(): DecodedRecord[] {
    return this.checked.records();
  }

  get recordCount(): number {
    return this.checked.count;
  }

  get recordBatches(): Buffer {
    return this.checked.bytes;
  }
}
