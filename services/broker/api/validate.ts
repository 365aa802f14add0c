/** Request field checks shared by the handlers; each failure is an INVALID_REQUEST naming the field. */
import { TideError } from '../../common/errors';
import { echo } from '../../common/echo';

export function requireTopic(topic: string): string {
  if (typeof topic !== 'string' || topic.length === 0)
    throw new TideError('INVALID_REQUEST', 'topic is required');
  return topic;
}

export function requirePartition(partition: number): number {
  if (!Number.isInteger(partition) || partition < 0) {
    throw new TideError(
      'INVALID_REQUEST',
      `partition must be a non-negative integer, got ${echo(partition)}`,
    );
  }
  return partition;
}

/**
 * A fetch offset. Negative ones are OFFSET_OUT_OF_RANGE, as Kafka answers a fetch below the log
 * (a client resets its position on it); offsets past 2^53 cannot name a record and are refused.
 */
export function requireOffset(offset: number): number {
  if (typeof offset !== 'number' || Number.isNaN(offset) || offset > Number.MAX_SAFE_INTEGER)
    throw new TideError('INVALID_REQUEST', `offset must be an integer below 2^53, got ${echo(offset)}`);
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new TideError('OFFSET_OUT_OF_RANGE', `offset must be a non-negative integer, got ${echo(offset)}`);
  }
  return offset;
}

/** A position of a FetchStream: like requireOffset, but a negative offset is a malformed request. */
export function requireStreamOffset(offset: number): number {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new TideError(
      'INVALID_REQUEST',
      `offset must be a non-negative integer below 2^53, got ${echo(offset)}`,
    );
  return offset;
}

/** A byte limit: 0 means the default; negative values are rejected; large ones are capped. */
export function byteLimit(name: string, value: number, defaultBytes: number, maxBytes: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new TideError('INVALID_REQUEST', `${name} must be >= 0, got ${echo(value)}`);
  return value === 0 ? defaultBytes : Math.min(value, maxBytes);
}

export function waitLimit(name: string, value: number, maxMs: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new TideError('INVALID_REQUEST', `${name} must be >= 0, got ${echo(value)}`);
  return Math.min(value, maxMs);
}

/**
 * An enum field. The proto loader hands a value this build does not know (acks 7, format 9) to
 * the handler as its number; it is refused rather than read as some default.
 */
export function requireEnum<T extends string>(name: string, value: T | number, known: Record<string, T>): T {
  const names = Object.values(known) as string[];
  if (typeof value !== 'string' || !names.includes(value))
    throw new TideError('INVALID_REQUEST', `${name} ${echo(value)} is not one of ${names.join(', ')}`);
  return value as T;
}
