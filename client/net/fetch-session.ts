/**
 * One FetchStream to one broker for a fixed set of (partition, start offset) positions. The
 * broker keeps pushing new data; to change the set or seek, the owner cancels the session and
 * opens another (the protocol's way to seek). HTTP/2 flow control is the backpressure: pause()
 * stops reading, so the broker's writes block once the windows fill.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../services/common/errors';
import { fromGrpcError } from '../../services/common/grpc/status';
import type { FetchResponse } from '../../services/common/grpc/generated/tide/v1/FetchResponse';
import type { FetchStreamRequest__Input } from '../../services/common/grpc/generated/tide/v1/FetchStreamRequest';
import type { IsolationLevel } from '../../services/common/grpc/generated/tide/v1/IsolationLevel';
import { decodeFetchResponse, encodeFetchStreamRequest, METHOD_FETCH_STREAM } from './wire';

export interface FetchSessionHandlers {
  onData(session: FetchSession, response: FetchResponse): void;
  /** The stream ended or failed without being cancelled by its owner. */
  onEnd(session: FetchSession, error: TideError): void;
}

export class FetchSession {
  private readonly call: grpc.ClientReadableStream<FetchResponse>;
  private cancelled = false;
  private ended = false;

  constructor(
    client: grpc.Client,
    readonly address: string,
    /** Identifies the set of positions, so the owner can tell whether it must reopen. */
    readonly key: string,
    positions: { topic: string; partition: number; offset: number }[],
    maxBytes: number,
    handlers: FetchSessionHandlers,
    isolation: IsolationLevel = 'ISOLATION_LEVEL_READ_UNCOMMITTED',
  ) {
    const request: FetchStreamRequest__Input = {
      positions,
      max_bytes: maxBytes,
      format: 'RECORD_FORMAT_BATCHES',
      isolation,
    };
    this.call = client.makeServerStreamRequest(
      METHOD_FETCH_STREAM,
      encodeFetchStreamRequest,
      decodeFetchResponse,
      request,
      new grpc.Metadata(),
      {},
    );
    this.call.on('data', (response: FetchResponse) => {
      if (!this.cancelled) handlers.onData(this, response);
    });
    this.call.on('error', (err: unknown) => this.finish(handlers, fromGrpcError(err)));
    this.call.on('end', () =>
      this.finish(
        handlers,
        new TideError('BROKER_NOT_AVAILABLE', `broker ${address} ended the fetch stream`),
      ),
    );
  }

  get alive(): boolean {
    return !this.cancelled && !this.ended;
  }

  pause(): void {
    if (this.alive) this.call.pause();
  }

  resume(): void {
    if (this.alive) this.call.resume();
  }

  /** Stops the session; no more callbacks. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    if (!this.ended) this.call.cancel();
  }

  private finish(handlers: FetchSessionHandlers, error: TideError): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.cancelled) handlers.onEnd(this, error);
  }
}
