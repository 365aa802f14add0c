/** Request field checks shared by the handlers; each failure is an INVALID_REQUEST naming the field. */
import { TideError } from '../../common/errors';

export function requireTopic(topic: string): string {
  if (typeof topic !== 'string' || topic.length === 0)
    throw new TideError('INVALID_REQUEST', 'topic is required');
  return topic;
}

export function requirePartition(partition: number): number {
  if (!Number.isInteger(partition) || partition < 0) {
    throw new TideError('INVALID_REQUEST', `partition must be a non-negative integer, got ${partition}`);
  }
  return partition;
}

export function requireOffset(offset: number): number {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new TideError('OFFSET_OUT_OF_RANGE', `offset must be a non-negative integer, got ${offset}`);
  }
  return offset;
}

/** A byte limit: 0 means the default; negative values are rejected; large ones are capped. */
export function byteLimit(name: string, value: number, defaultBytes: number, maxBytes: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new TideError('INVALID_REQUEST', `${name} must be >= 0, got ${value}`);
  return value === 0 ? defaultBytes : Math.min(value, maxBytes);
}

export function waitLimit(name: string, value: number, maxMs: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new TideError('INVALID_REQUEST', `${name} must be >= 0, got ${value}`);
  return Math.min(value, maxMs);
}
