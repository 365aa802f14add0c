/**
 * One fetch stream to one broker for a fixed set of (partition, start offset) positions. The
 * broker keeps pushing new data; to change the set or seek, the owner cancels the session and
 * opens another (the protocol's way to seek). HTTP/2 flow control is the backpressure: pause()
 * stops reading, so the broker's writes block once the windows fill.
 *
 * The session calls FetchStreamMulti, whose messages carry several partitions' answers each (one
 * message and one decode per up to max_bytes, however many partitions the bytes come from), and
 * hands every answer to onData as FetchStream would. A broker that does not know FetchStreamMulti
 * (UNIMPLEMENTED, an older version) gets FetchStream instead, from then on for that connection.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../services/common/errors';
import { fromGrpcError } from '../../services/common/grpc/status';
import type { FetchResponse } from '../../services/common/grpc/generated/tide/v1/FetchResponse';
import type { FetchStreamMultiResponse } from '../../services/common/grpc/generated/tide/v1/FetchStreamMultiResponse';
import type { FetchStreamRequest__Input } from '../../services/common/grpc/generated/tide/v1/FetchStreamRequest';
import type { IsolationLevel } from '../../services/common/grpc/generated/tide/v1/IsolationLevel';
import {
  decodeFetchResponse,
  decodeFetchStreamMultiResponse,
  encodeFetchStreamRequest,
  METHOD_FETCH_STREAM,
  METHOD_FETCH_STREAM_MULTI,
} from './wire';

export interface FetchSessionHandlers {
  onData(session: FetchSession, response: FetchResponse): void;
  /** The stream ended or failed without being cancelled by its owner. */
  onEnd(session: FetchSession, error: TideError): void;
}

/** Connections whose broker answered FetchStreamMulti with UNIMPLEMENTED. */
const withoutMulti = new WeakSet<grpc.Client>();

type FetchCall =
  grpc.ClientReadableStream<FetchResponse> | grpc.ClientReadableStream<FetchStreamMultiResponse>;

export class FetchSession {
  private call!: FetchCall;
  private cancelled = false;
  private ended = false;
  private paused = false;
  private readonly request: FetchStreamRequest__Input;

  constructor(
    private readonly client: grpc.Client,
    readonly address: string,
    /** Identifies the set of positions, so the owner can tell whether it must reopen. */
    readonly key: string,
    positions: { topic: string; partition: number; offset: number }[],
    maxBytes: number,
    private readonly handlers: FetchSessionHandlers,
    isolation: IsolationLevel = 'ISOLATION_LEVEL_READ_UNCOMMITTED',
  ) {
    this.request = { positions, max_bytes: maxBytes, format: 'RECORD_FORMAT_BATCHES', isolation };
    this.open(!withoutMulti.has(client));
  }

  private open(multi: boolean): void {
    let received = false;
    let call: FetchCall;
    if (multi) {
      const multiCall = this.client.makeServerStreamRequest(
        METHOD_FETCH_STREAM_MULTI,
        encodeFetchStreamRequest,
        decodeFetchStreamMultiResponse,
        this.request,
        new grpc.Metadata(),
        {},
      );
      multiCall.on('data', (message: FetchStreamMultiResponse) => {
        received = true;
        for (const response of message.partitions) {
          if (this.cancelled) return;
          this.handlers.onData(this, response);
        }
      });
      call = multiCall;
    } else {
      const singleCall = this.client.makeServerStreamRequest(
        METHOD_FETCH_STREAM,
        encodeFetchStreamRequest,
        decodeFetchResponse,
        this.request,
        new grpc.Metadata(),
        {},
      );
      singleCall.on('data', (response: FetchResponse) => {
        received = true;
        if (!this.cancelled) this.handlers.onData(this, response);
      });
      call = singleCall;
    }
    this.call = call;
    if (this.paused) call.pause();
    call.on('error', (err: unknown) => {
      if (call !== this.call) return;
      if (multi && !received && (err as { code?: number }).code === grpc.status.UNIMPLEMENTED) {
        withoutMulti.add(this.client);
        if (!this.cancelled) this.open(false);
        return;
      }
      this.finish(fromGrpcError(err));
    });
    call.on('end', () => {
      if (call !== this.call) return;
      this.finish(new TideError('BROKER_NOT_AVAILABLE', `broker ${this.address} ended the fetch stream`));
    });
  }

  get alive(): boolean {
    return !this.cancelled && !this.ended;
  }

  pause(): void {
    if (!this.alive) return;
    this.paused = true;
    this.call.pause();
  }

  resume(): void {
    if (!this.alive) return;
    this.paused = false;
    this.call.resume();
  }

  /** Stops the session; no more callbacks. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    if (!this.ended) this.call.cancel();
  }

  private finish(error: TideError): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.cancelled) this.handlers.onEnd(this, error);
  }
}
