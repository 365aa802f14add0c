/**
 * grpc-js refuses a request larger than the server's max_receive_message_length with
 * RESOURCE_EXHAUSTED by itself, before any Tide handler or interceptor sees the call, so that
 * status would carry no `tide-error-code` trailer and clients could not tell "request too large"
 * (never worth retrying) from an overloaded broker. grpc-js sends those statuses through
 * BaseServerInterceptingCall.sendStatus without passing server interceptors; this wraps that one
 * method so every RESOURCE_EXHAUSTED leaving a Tide server without a Tide code gets
 * REQUEST_TOO_LARGE. test/integration/hardening.test.ts proves it on a real broker, so a grpc-js
 * upgrade that moves the method fails there rather than silently.
 */
import * as grpc from '@grpc/grpc-js';
import { TRAILER_ERROR_CODE, TRAILER_RETRIABLE } from './status';

interface StatusCall {
  sendStatus(status: Partial<grpc.StatusObject>): void;
}

let tagged = false;

/** Installs the wrapper (once per process; later calls do nothing). */
export function tagOversizedRequests(): void {
  if (tagged) return;
  tagged = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const internals = require('@grpc/grpc-js/build/src/server-interceptors') as {
    BaseServerInterceptingCall?: { prototype: StatusCall };
  };
  const prototype = internals.BaseServerInterceptingCall?.prototype;
  if (!prototype || typeof prototype.sendStatus !== 'function') return;
  const send = prototype.sendStatus;
  prototype.sendStatus = function (this: StatusCall, status: Partial<grpc.StatusObject>): void {
    send.call(this, withTideCode(status));
  };
}

/** The status with REQUEST_TOO_LARGE trailers when it is an untagged RESOURCE_EXHAUSTED. */
export function withTideCode(status: Partial<grpc.StatusObject>): Partial<grpc.StatusObject> {
  if (status.code !== grpc.status.RESOURCE_EXHAUSTED) return status;
  if (status.metadata && status.metadata.get(TRAILER_ERROR_CODE).length > 0) return status;
  const metadata = status.metadata?.clone() ?? new grpc.Metadata();
  metadata.set(TRAILER_ERROR_CODE, 'REQUEST_TOO_LARGE');
  metadata.set(TRAILER_RETRIABLE, 'false');
  const details = status.details ?? '';
  return {
    ...status,
    details: details.startsWith('REQUEST_TOO_LARGE: ') ? details : `REQUEST_TOO_LARGE: ${details}`,
    metadata,
  };
}
