/**
 * Typed errors of the streams library. They are TideErrors (services/common/errors.ts) with a
 * `kind` naming what went wrong, so callers can `switch (err.kind)` without parsing messages.
 */
import { TideError, type ErrorCode } from '../services/common/errors';

export type StreamsErrorKind =
  /** The topology is invalid (an unnamed stateful node, a duplicate name, a missing serde...). */
  | 'TOPOLOGY'
  /** Topics joined or merged into one task have different partition counts. */
  | 'CO_PARTITIONING'
  /** The requested processing guarantee is not available (kept for callers that switch on it). */
  | 'UNSUPPORTED_GUARANTEE'
  /** A serde could not read or write a record. */
  | 'SERDE'
  /** A store was asked for that does not exist, or is not (yet) queryable. */
  | 'STORE'
  /** The test driver or the runtime was used out of order (piping after close...). */
  | 'STATE'
  /**
   * The topology differs from the one the application last ran with in a way that would orphan
   * state (a store or internal topic renamed or removed): TopologyChangeError, with the diff.
   */
  | 'TOPOLOGY_CHANGE'
  /**
   * A sink record larger than its topic's max.message.bytes: the broker would refuse it on every
   * attempt. A processing error of the record that produced it (processingErrors applies).
   */
  | 'RECORD_TOO_LARGE'
  /**
   * Retriable: an interactive query's store partition is restoring, moving between instances, or
   * its owner is not known yet (code STORE_NOT_AVAILABLE).
   */
  | 'NOT_AVAILABLE';

const CODE_OF: Record<StreamsErrorKind, ErrorCode> = {
  TOPOLOGY: 'INVALID_CONFIG',
  CO_PARTITIONING: 'INVALID_PARTITIONS',
  UNSUPPORTED_GUARANTEE: 'INVALID_CONFIG',
  SERDE: 'INVALID_RECORD',
  STORE: 'INVALID_REQUEST',
  STATE: 'INVALID_REQUEST',
  TOPOLOGY_CHANGE: 'INVALID_CONFIG',
  RECORD_TOO_LARGE: 'MESSAGE_TOO_LARGE',
  NOT_AVAILABLE: 'STORE_NOT_AVAILABLE',
};

export class StreamsError extends TideError {
  readonly kind: StreamsErrorKind;

  constructor(kind: StreamsErrorKind, message: string, options: { cause?: unknown } = {}) {
    super(CODE_OF[kind], message, { cause: options.cause, retriable: kind === 'NOT_AVAILABLE' });
    this.name = 'StreamsError';
    this.kind = kind;
  }
}
