/** Normalising what callers pass to send(): keys, values and headers as Buffers, partitions checked. */
import { TideError } from '../../services/common/errors';
import type { RecordHeader } from '../../services/common/records';
import type { Bytes, HeadersInput } from '../types';

export function toBuffer(bytes: Bytes): Buffer {
  if (Buffer.isBuffer(bytes)) return bytes;
  if (typeof bytes === 'string') return Buffer.from(bytes, 'utf8');
  throw new TypeError(
    `record keys, values and header values must be Buffers or strings, got ${typeof bytes}`,
  );
}

export function toHeaders(headers: HeadersInput): RecordHeader[] {
  if (Array.isArray(headers)) {
    let plain = true;
    for (const h of headers) if (h.value !== null && !Buffer.isBuffer(h.value)) plain = false;
    return plain
      ? (headers as RecordHeader[])
      : headers.map((h) => ({ key: h.key, value: h.value === null ? null : toBuffer(h.value) }));
  }
  return Object.entries(headers).map(([key, value]) => ({
    key,
    value: value === null ? null : toBuffer(value),
  }));
}

/** Whether `partition` is a partition number at all (whether the topic has it is another matter). */
export function isPartitionNumber(partition: number): boolean {
  return Number.isInteger(partition) && partition >= 0;
}

export function checkPartition(topic: string, partition: number, partitionCount: number): number {
  if (!Number.isInteger(partition) || partition < 0 || partition >= partitionCount) {
    throw new TideError(
      'UNKNOWN_PARTITION',
      `topic ${topic} has ${partitionCount} partitions; partition ${partition} does not exist`,
      { context: { topic, partition } },
    );
  }
  return partition;
}
