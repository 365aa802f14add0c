/**
 * One pipelined ProduceStream to one broker: requests carry client-chosen correlation ids, the
 * broker answers each (in any order across partitions) with the same id. Knows nothing of
 * batching or retries: it reports responses and failures to its owner.
 *
 * Acks 'none' requests get no response: they complete when grpc-js has handed them to HTTP/2.
 * When the stream breaks (transport error, broker shutdown, cancel), every request still in
 * flight is reported failed with a retriable BROKER_NOT_AVAILABLE (or the mapped status).
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../services/common/errors';
import { fromGrpcError, fromWireError } from '../../services/common/grpc/status';
import type { ProduceResponse } from '../../services/common/grpc/generated/tide/v1/ProduceResponse';
import { decodeProduceResponse, identity, METHOD_PRODUCE_STREAM, type EncodedProduceRequest } from './wire';

/** What the stream needs to know about a request it carries. */
export interface InFlightRequest {
  correlationId: number;
  sentAtMs: number;
}

export interface ProduceStreamHandlers<T extends InFlightRequest> {
  /** A response arrived; `error` is set when the broker refused the request. */
  onResponse(request: T, response: ProduceResponse, error: TideError | undefined): void;
  /** An acks-none request was written to the transport. */
  onWritten(request: T): void;
  /** The stream broke; `requests` were in flight on it. */
  onFailure(requests: T[], error: TideError): void;
  /** The stream accepts writes again after reporting congestion. */
  onDrain(): void;
}

export class ProduceStream<T extends InFlightRequest> {
  readonly address: string;
  private readonly call: grpc.ClientDuplexStream<Buffer, ProduceResponse>;
  private readonly inFlight = new Map<number, T>();
  private nextCorrelationId = 1;
  private dead = false;
  /** True after write() returned false, until 'drain'. */
  congested = false;

  constructor(
    client: grpc.Client,
    address: string,
    private readonly handlers: ProduceStreamHandlers<T>,
  ) {
    this.address = address;
    this.call = client.makeBidiStreamRequest(
      METHOD_PRODUCE_STREAM,
      identity,
      decodeProduceResponse,
      new grpc.Metadata(),
      {},
    );
    this.call.on('data', (response: ProduceResponse) => this.onData(response));
    this.call.on('error', (err: unknown) => this.die(fromGrpcError(err)));
    this.call.on('end', () =>
      this.die(new TideError('BROKER_NOT_AVAILABLE', `broker ${address} closed the produce stream`)),
    );
    this.call.on('drain', () => {
      this.congested = false;
      this.handlers.onDrain();
    });
  }

  get alive(): boolean {
    return !this.dead;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * Sends one request. Returns false when the stream is dead (nothing was sent). `request`
   * gets its correlation id and send time here.
   */
  send(request: T, encoded: EncodedProduceRequest, acksNone: boolean, nowMs: number): boolean {
    if (this.dead) return false;
    const correlationId = this.nextCorrelationId++;
    request.correlationId = correlationId;
    request.sentAtMs = nowMs;
    const message = encoded.withCorrelationId(correlationId);
    if (acksNone) {
      this.inFlight.set(correlationId, request);
      const ok = this.call.write(message, () => {
        if (this.inFlight.delete(correlationId)) this.handlers.onWritten(request);
      });
      if (!ok) this.congested = true;
      return true;
    }
    this.inFlight.set(correlationId, request);
    if (!this.call.write(message)) this.congested = true;
    return true;
  }

  /** Send time of the oldest request in flight (Infinity when none). */
  oldestSentAtMs(): number {
    let oldest = Infinity;
    for (const r of this.inFlight.values()) if (r.sentAtMs < oldest) oldest = r.sentAtMs;
    return oldest;
  }

  /** Breaks the stream now, failing whatever is in flight with `error`. */
  abort(error: TideError): void {
    if (this.dead) return;
    this.die(error);
    this.call.cancel();
  }

  /** Half-closes: the broker finishes what is in flight, then ends the stream. */
  end(): void {
    if (!this.dead) this.call.end();
  }

  private onData(response: ProduceResponse): void {
    const request = this.inFlight.get(response.correlation_id);
    if (!request) return; // answered after a timeout already failed it
    this.inFlight.delete(response.correlation_id);
    this.handlers.onResponse(request, response, response.error ? fromWireError(response.error) : undefined);
  }

  private die(error: TideError): void {
    if (this.dead) return;
    this.dead = true;
    const requests = [...this.inFlight.values()];
    this.inFlight.clear();
    if (requests.length > 0) {
      // Whatever broke the stream, the requests on it may or may not have been written: a retry
      // (deduplicated by sequence number when idempotent) is the only safe answer.
      const err = error.retriable
        ? error
        : new TideError(
            'BROKER_NOT_AVAILABLE',
            `produce stream to ${this.address} failed: ${error.code}: ${error.message}`,
            { cause: error },
          );
      this.handlers.onFailure(requests, err);
    }
    // Partitions waiting for this stream to drain must not wait for a stream that is gone.
    if (this.congested) {
      this.congested = false;
      this.handlers.onDrain();
    }
  }
}
