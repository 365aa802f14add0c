/**
 * Request/answer calls carried on one long-lived bidirectional stream instead of a unary call
 * each, for the internal legs that run once per transaction (a leader's partition join, a
 * coordinator's markers). With grpc-js a unary call opens an HTTP/2 stream with its headers,
 * trailers, deadline and call stack on both ends; on these machines that is several times the CPU
 * of one message on an open stream (docs/transactions.md, "Performance").
 *
 * Every such stream has the same wire shape (StreamCallRequest, StreamCallAnswer): each request
 * message carries a `call_id` chosen by the caller and the unary `request`; each answer repeats the
 * `call_id` with the unary `response` or the `error` the unary call would have failed with.
 * Answers may come in any order.
 *
 * Client (StreamCallsClient): opens the stream on first use; a broken stream fails the calls it
 * carried with the stream's error (retriable unless the status says otherwise: the callers retry
 * idempotent calls; an expired credential ending a stream that was answered before is retriable)
 * and the next call opens a new one. A server without the stream method answers
 * UNIMPLEMENTED: the calls in flight and every later one go through the unary fallback.
 *
 * Server (StreamCallsServer): runs each request through the unary handler and writes its answer;
 * `closeStreams` ends every open stream with BROKER_NOT_AVAILABLE-style shutdown errors so a
 * stopping server does not wait for streams its peers would keep open.
 */
import * as grpc from '@grpc/grpc-js';
import type { Clock, Timer } from '../clock';
import { TideError, toTideError, type ErrorCode } from '../errors';
import type { Logger } from '../logger';
import { fromGrpcError, fromWireError, toGrpcStatus, toWireError } from './status';

/** The error shape of `tide.v1.Error`. */
export interface WireErrorMessage {
  code: string;
  message: string;
  retriable: boolean;
}

/** A request message of every call-carrying stream: the unary request and the caller's id for it. */
export interface StreamCallRequest<Req> {
  call_id: number;
  request?: Req | null;
}

/** An answer message of every call-carrying stream: the unary answer, or the error it failed with. */
export interface StreamCallAnswer<Res> {
  call_id: number;
  response?: Res | null;
  error?: WireErrorMessage | null;
}

export interface StreamCallsClientOptions<Req, Res> {
  /** Opens the stream; the caller's metadata (tokens, routing headers) goes here. */
  open: () => grpc.ClientDuplexStream<StreamCallRequest<Req>, StreamCallAnswer<Res>>;
  /** The unary call, for a server without the stream method, with the time left for it. */
  unary: (request: Req, timeoutMs: number) => Promise<Res>;
  clock: Clock;
  /** For the timeout error: what the call is (e.g. "AddPartitionsToTxn at 10.0.0.7:9093"). */
  describe: string;
}

interface PendingCall<Req, Res> {
  request: Req;
  deadlineMs: number;
  timer: Timer;
  resolve: (value: Res) => void;
  reject: (err: unknown) => void;
}

type ClientStream<Req, Res> = grpc.ClientDuplexStream<StreamCallRequest<Req>, StreamCallAnswer<Res>>;

export class StreamCallsClient<Req, Res> {
  private stream: ClientStream<Req, Res> | undefined;
  /** Whether the open stream has answered: its credentials were accepted. */
  private answered = false;
  private readonly pending = new Map<number, PendingCall<Req, Res>>();
  private nextCallId = 1;
  private unimplemented = false;
  private closed = false;

  constructor(private readonly options: StreamCallsClientOptions<Req, Res>) {}

  /** Rejects with TideError; REQUEST_TIMED_OUT (retriable) when no answer came within timeoutMs. */
  call(request: Req, timeoutMs: number): Promise<Res> {
    const deadlineMs = this.options.clock.nowMs() + timeoutMs;
    if (this.closed)
      return Promise.reject(new TideError('BROKER_NOT_AVAILABLE', `${this.options.describe}: closed`));
    if (this.unimplemented) return this.options.unary(request, timeoutMs);
    const stream = this.stream ?? this.openStream();
    const callId = this.nextCallId++;
    return new Promise<Res>((resolve, reject) => {
      const timer = this.options.clock.setTimeout(() => {
        if (!this.pending.delete(callId)) return;
        reject(
          new TideError('REQUEST_TIMED_OUT', `${this.options.describe}: no answer within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      this.pending.set(callId, { request, deadlineMs, timer, resolve, reject });
      stream.write({ call_id: callId, request });
    });
  }

  /** Fails the calls in flight and ends the stream; later calls fail at once. */
  close(): void {
    this.closed = true;
    this.fail(new TideError('BROKER_NOT_AVAILABLE', `${this.options.describe}: closed`));
    this.stream?.cancel();
    this.stream = undefined;
  }

  private openStream(): ClientStream<Req, Res> {
    const stream = this.options.open();
    this.stream = stream;
    this.answered = false;
    stream.on('data', (answer: StreamCallAnswer<Res>) => {
      this.answered = true;
      const call = this.pending.get(answer.call_id);
      if (!call) return; // timed out already
      this.pending.delete(answer.call_id);
      call.timer.cancel();
      if (answer.error?.code) call.reject(fromWireError(answer.error));
      else call.resolve(answer.response as Res);
    });
    stream.on('error', (err: grpc.ServiceError) => this.broken(stream, err));
    // The server ended the stream without an error: the calls it carried are lost, retriable.
    stream.on('end', () =>
      this.broken(
        stream,
        new TideError('BROKER_NOT_AVAILABLE', `${this.options.describe}: the stream ended`),
      ),
    );
    return stream;
  }

  private broken(stream: ClientStream<Req, Res>, err: unknown): void {
    if (this.stream !== stream) return;
    this.stream = undefined;
    if ((err as Partial<grpc.ServiceError>).code === grpc.status.UNIMPLEMENTED) {
      this.unimplemented = true;
      for (const [callId, call] of this.pending) {
        this.pending.delete(callId);
        call.timer.cancel();
        const leftMs = Math.max(1, call.deadlineMs - this.options.clock.nowMs());
        this.options.unary(call.request, leftMs).then(call.resolve, call.reject);
      }
      return;
    }
    const error = err instanceof TideError ? err : fromGrpcError(err);
    // A stream that was answered before has had its credentials accepted: ending it
    // UNAUTHENTICATED means they expired meanwhile (a rotated token), and a new stream presents the
    // current ones.
    if (error.code === 'AUTHENTICATION_FAILED' && this.answered)
      this.fail(
        new TideError(error.code, `${error.message}; the next call opens a new stream`, { retriable: true }),
      );
    else this.fail(error);
  }

  private fail(error: TideError): void {
    for (const call of this.pending.values()) {
      call.timer.cancel();
      call.reject(error);
    }
    this.pending.clear();
  }
}

type ServerStream<Req, Res> = grpc.ServerDuplexStream<
  StreamCallRequest<Req>,
  { call_id: number; response?: Res; error?: ReturnType<typeof toWireError> }
>;

export interface StreamCallsServerOptions<Req, Res> {
  /** The unary handler: the same checks and work as the unary method. */
  handle: (request: Req, metadata: grpc.Metadata) => Promise<Res>;
  /** The stream method's name, for logs and the RPC metrics (one observation per call). */
  method: string;
  logger: Logger;
  observeRpc?: (method: string, code: string, seconds: number) => void;
  /** Calls a stream may have unanswered; beyond it a call is answered TOO_MANY_STREAMS-style at once. */
  maxInFlight?: number;
  /** The error open streams end with on closeStreams (default BROKER_NOT_AVAILABLE). */
  shutdownCode?: ErrorCode;
}

const DEFAULT_MAX_IN_FLIGHT = 4_096;

export class StreamCallsServer<Req, Res> {
  private readonly open = new Set<() => void>();
  private closed = false;

  constructor(private readonly options: StreamCallsServerOptions<Req, Res>) {}

  /** The grpc-js handler of the stream method. */
  readonly handler = (call: ServerStream<Req, Res>): void => this.serve(call);

  /** Ends every open stream (the peers' calls in flight fail retriably) and refuses new ones. */
  closeStreams(): void {
    this.closed = true;
    for (const end of [...this.open]) end();
  }

  private shutdownError(): TideError {
    return new TideError(
      this.options.shutdownCode ?? 'BROKER_NOT_AVAILABLE',
      'the service is shutting down; retry',
    );
  }

  private serve(call: ServerStream<Req, Res>): void {
    if (this.closed) {
      call.emit('error', toGrpcStatus(this.shutdownError()));
      return;
    }
    const { handle, method, logger, observeRpc } = this.options;
    const maxInFlight = this.options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    let inFlight = 0;
    let clientDone = false;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      this.open.delete(end);
      if (!call.destroyed) call.emit('error', toGrpcStatus(this.shutdownError()));
    };
    this.open.add(end);
    const finish = () => {
      this.open.delete(end);
      done = true;
    };
    call.on('cancelled', finish);
    call.on('error', finish);
    const write = (callId: number, outcome: { response: Res } | { error: unknown }) => {
      if (done || call.destroyed) return;
      call.write(
        'response' in outcome
          ? { call_id: callId, response: outcome.response }
          : { call_id: callId, error: toWireError(outcome.error) },
      );
    };
    // The caller half-closed: the stream ends once its last call is answered.
    const endIfDrained = () => {
      if (!clientDone || inFlight > 0 || done) return;
      finish();
      call.end();
    };
    const settled = () => {
      inFlight--;
      endIfDrained();
    };
    call.on('end', () => {
      clientDone = true;
      endIfDrained();
    });
    call.on('data', (message: StreamCallRequest<Req>) => {
      const callId = message.call_id;
      if (!message.request) {
        write(callId, { error: new TideError('INVALID_REQUEST', 'request is required') });
        return;
      }
      if (inFlight >= maxInFlight) {
        const error = new TideError(
          'TOO_MANY_STREAMS',
          `more than ${maxInFlight} ${method} calls in flight on one stream; retry after some are answered`,
          { retriable: true },
        );
        write(callId, { error });
        return;
      }
      inFlight++;
      const started = observeRpc ? process.hrtime.bigint() : 0n;
      handle(message.request, call.metadata).then(
        (value) => {
          observeRpc?.(method, 'OK', Number(process.hrtime.bigint() - started) / 1e9);
          write(callId, { response: value });
          settled();
        },
        (err: unknown) => {
          if (!(err instanceof TideError)) logger.error({ err, method }, 'request failed unexpectedly');
          else logger.debug({ code: err.code, method, msg: err.message }, 'request rejected');
          observeRpc?.(method, toTideError(err).code, Number(process.hrtime.bigint() - started) / 1e9);
          write(callId, { error: err });
          settled();
        },
      );
    });
  }
}
