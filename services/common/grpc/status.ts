/**
 * The API edge of errors. Servers map a thrown error to a gRPC status whose trailers carry the
 * Tide code (`tide-error-code`) and whether it is retriable (`tide-retriable`); clients map a
 * gRPC status back to a TideError. Plain gRPC clients in other languages read the same trailers.
 */
import * as grpc from '@grpc/grpc-js';
import { ErrorCode, TideError, isErrorCode, toTideError } from '../errors';
import type { Error__Input as WireError } from './generated/tide/v1/Error';
import { boundMessage } from '../echo';

/** The gRPC status that carries each Tide code; a new code fails to compile until it has one. */
export const GRPC_STATUS_OF_CODE: Record<ErrorCode, grpc.status> = {
  UNKNOWN_TOPIC: grpc.status.NOT_FOUND,
  UNKNOWN_PARTITION: grpc.status.NOT_FOUND,
  TOPIC_ALREADY_EXISTS: grpc.status.ALREADY_EXISTS,
  INVALID_TOPIC: grpc.status.INVALID_ARGUMENT,
  INVALID_PARTITIONS: grpc.status.INVALID_ARGUMENT,
  INVALID_REPLICATION_FACTOR: grpc.status.INVALID_ARGUMENT,
  INVALID_CONFIG: grpc.status.INVALID_ARGUMENT,
  INVALID_REQUEST: grpc.status.INVALID_ARGUMENT,
  INVALID_RECORD: grpc.status.INVALID_ARGUMENT,
  CORRUPT_MESSAGE: grpc.status.DATA_LOSS,
  MESSAGE_TOO_LARGE: grpc.status.INVALID_ARGUMENT,
  REQUEST_TOO_LARGE: grpc.status.RESOURCE_EXHAUSTED,
  INTERNAL_TOPIC: grpc.status.PERMISSION_DENIED,
  OFFSET_OUT_OF_RANGE: grpc.status.OUT_OF_RANGE,
  NOT_LEADER: grpc.status.FAILED_PRECONDITION,
  LEADER_NOT_AVAILABLE: grpc.status.UNAVAILABLE,
  FENCED_EPOCH: grpc.status.FAILED_PRECONDITION,
  NOT_ENOUGH_REPLICAS: grpc.status.UNAVAILABLE,
  REQUEST_TIMED_OUT: grpc.status.DEADLINE_EXCEEDED,
  OUT_OF_ORDER_SEQUENCE: grpc.status.FAILED_PRECONDITION,
  INVALID_PRODUCER_EPOCH: grpc.status.FAILED_PRECONDITION,
  UNKNOWN_PRODUCER_ID: grpc.status.FAILED_PRECONDITION,
  PRODUCER_FENCED: grpc.status.FAILED_PRECONDITION,
  INVALID_TXN_STATE: grpc.status.FAILED_PRECONDITION,
  CONCURRENT_TRANSACTIONS: grpc.status.UNAVAILABLE,
  UNSTABLE_OFFSET_COMMIT: grpc.status.UNAVAILABLE,
  TRANSACTIONAL_ID_NOT_FOUND: grpc.status.NOT_FOUND,
  INVALID_TRANSACTION_TIMEOUT: grpc.status.INVALID_ARGUMENT,
  TRANSACTION_ABORTED: grpc.status.ABORTED,
  KAFKA_STORAGE_ERROR: grpc.status.INTERNAL,
  BROKER_NOT_AVAILABLE: grpc.status.UNAVAILABLE,
  METADATA_UNAVAILABLE: grpc.status.UNAVAILABLE,
  NOT_CONTROLLER: grpc.status.FAILED_PRECONDITION,
  COORDINATOR_NOT_AVAILABLE: grpc.status.UNAVAILABLE,
  NOT_COORDINATOR: grpc.status.FAILED_PRECONDITION,
  UNKNOWN_MEMBER_ID: grpc.status.FAILED_PRECONDITION,
  FENCED_MEMBER_EPOCH: grpc.status.FAILED_PRECONDITION,
  ILLEGAL_GENERATION: grpc.status.FAILED_PRECONDITION,
  NON_EMPTY_GROUP: grpc.status.FAILED_PRECONDITION,
  GROUP_ID_NOT_FOUND: grpc.status.NOT_FOUND,
  STORE_NOT_AVAILABLE: grpc.status.UNAVAILABLE,
  TLS_FAILED: grpc.status.UNAVAILABLE,
  AUTHENTICATION_FAILED: grpc.status.UNAUTHENTICATED,
  AUTHORIZATION_FAILED: grpc.status.PERMISSION_DENIED,
  TOO_MANY_STREAMS: grpc.status.RESOURCE_EXHAUSTED,
  TOO_MANY_CONNECTIONS: grpc.status.RESOURCE_EXHAUSTED,
  UNKNOWN: grpc.status.UNKNOWN,
};

export const TRAILER_ERROR_CODE = 'tide-error-code';
export const TRAILER_RETRIABLE = 'tide-retriable';

/** The status object to pass to a unary callback or `call.emit('error', ...)`. */
export function toGrpcStatus(err: unknown): Partial<grpc.StatusObject> & { code: grpc.status } {
  const tideError = toTideError(err);
  const metadata = new grpc.Metadata();
  metadata.set(TRAILER_ERROR_CODE, tideError.code);
  metadata.set(TRAILER_RETRIABLE, String(tideError.retriable));
  return {
    code: GRPC_STATUS_OF_CODE[tideError.code],
    details: boundMessage(`${tideError.code}: ${tideError.message}`),
    metadata,
  };
}

/** The in-message error of streamed responses. */
export function toWireError(err: unknown): WireError {
  const tideError = toTideError(err);
  return { code: tideError.code, message: boundMessage(tideError.message), retriable: tideError.retriable };
}

/** Turns an in-message error back into a TideError. */
export function fromWireError(wire: { code: string; message: string; retriable: boolean }): TideError {
  const code: ErrorCode = isErrorCode(wire.code) ? wire.code : 'UNKNOWN';
  return new TideError(code, wire.message, { retriable: wire.retriable });
}

const TRANSPORT_RETRIABLE = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.CANCELLED,
]);

/**
 * grpc-js's own size refusal ("Received message larger than max (N vs LIMIT)" from the server,
 * "Sent message larger than max" from this side) as a REQUEST_TOO_LARGE naming the limit and
 * the setting that raises it. Not retriable: the same request fails the same way.
 */
export function requestTooLarge(details: string, cause?: unknown): TideError {
  const sizes = /larger than max \((\d+) vs\.? (\d+)\)/.exec(details);
  const what = sizes ? `a request of ${sizes[1]} bytes exceeds the limit of ${sizes[2]} bytes` : details;
  const setting = /^Sent/.test(details)
    ? "the client's maxMessageBytes option"
    : "the broker's maxRequestBytes setting (TIDE_MAX_REQUEST_BYTES)";
  return new TideError('REQUEST_TOO_LARGE', `${what}; send smaller records or batches, or raise ${setting}`, {
    cause,
    retriable: false,
  });
}

/** What OpenSSL and Node say when a TLS handshake fails (wrong CA, name, missing client certificate, TLS vs plain text). */
const TLS_FAILURE =
  /certificate|self[- ]signed|SSL|TLS|handshake|altnames|unable to (verify|get local issuer)|wrong version number|packet length too long/i;

/** grpc-js ends some messages with an empty "Resolution note: "; drop it. */
function cleanDetails(details: string): string {
  return details.replace(/\.?\s*Resolution note:\s*$/, '');
}

/** Turns an error from a grpc-js call into a TideError (transport failures become BROKER_NOT_AVAILABLE). */
export function fromGrpcError(err: unknown): TideError {
  if (err instanceof TideError) return err;
  const serviceError = err as Partial<grpc.ServiceError>;
  const trailerCode = serviceError.metadata?.get(TRAILER_ERROR_CODE)[0];
  if (typeof trailerCode === 'string' && isErrorCode(trailerCode)) {
    // grpc-js's own size refusal carries the code (the broker adds it) but only grpc-js's wording.
    if (trailerCode === 'REQUEST_TOO_LARGE' && /larger than max/.test(serviceError.details ?? '')) {
      return requestTooLarge(cleanDetails(serviceError.details ?? ''), err);
    }
    const retriable = serviceError.metadata?.get(TRAILER_RETRIABLE)[0] === 'true';
    const details = cleanDetails(serviceError.details ?? '');
    const message = details.startsWith(`${trailerCode}: `) ? details.slice(trailerCode.length + 2) : details;
    return new TideError(trailerCode, message, { retriable, cause: err });
  }
  const code = serviceError.code;
  const details = cleanDetails(serviceError.details ?? '');
  if (code === grpc.status.UNAVAILABLE && TLS_FAILURE.test(details)) {
    return new TideError('TLS_FAILED', details, { cause: err });
  }
  if (code === grpc.status.UNAUTHENTICATED)
    return new TideError('AUTHENTICATION_FAILED', details, { cause: err });
  if (code === grpc.status.PERMISSION_DENIED)
    return new TideError('AUTHORIZATION_FAILED', details, { cause: err });
  if (code !== undefined && TRANSPORT_RETRIABLE.has(code)) {
    return new TideError('BROKER_NOT_AVAILABLE', details || String(err), { cause: err });
  }
  if (code === grpc.status.RESOURCE_EXHAUSTED) return requestTooLarge(details, err);
  return new TideError(
    'UNKNOWN',
    serviceError.details ?? (err instanceof Error ? err.message : String(err)),
    { cause: err },
  );
}
