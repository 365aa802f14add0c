/**
 * The broker-call layer: every request the client sends to a broker (or, through a broker's
 * channel, to a coordinator) is made here, so stubs, deadlines, metadata headers and error
 * mapping live in one place (kafkajs's network → protocol → broker layers):
 *
 * - stubs: the Broker and Admin clients of the connection pool (connection.ts), one set per
 *   broker address; FetchStreams run on connections of their own, never sharing one with the
 *   produce stream (connection.ts says why: bulk data both ways on one connection can stall it);
 * - deadlines: unary calls get `requestTimeoutMs` (a long poll its wait on top); streams have none
 *   (the producer's sender times requests out itself, keepalive notices dead connections);
 * - metadata headers: `tide-routing: proxy` while the cluster routes through the bootstrap broker,
 *   added by the pool's interceptor to every call, streams included;
 * - error mapping: a failed call rejects with a TideError (`fromGrpcError`: the `tide-error-code`
 *   trailer, else the gRPC status); an error inside a response (per partition) is mapped with
 *   `fromWireError` (`partitionError` adds the partition).
 *
 * The cluster layer (cluster.ts) owns one BrokerCalls; producer, consumer, admin and the group
 * client reach brokers only through it.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../services/common/errors';
import { fromGrpcError, fromWireError } from '../../services/common/grpc/status';
import type { AdminClient } from '../../services/common/grpc/generated/tide/v1/Admin';
import type { BrokerClient } from '../../services/common/grpc/generated/tide/v1/Broker';
import type { FetchRequest__Input } from '../../services/common/grpc/generated/tide/v1/FetchRequest';
import type { FetchResponse } from '../../services/common/grpc/generated/tide/v1/FetchResponse';
import type { InitProducerIdResponse } from '../../services/common/grpc/generated/tide/v1/InitProducerIdResponse';
import type { IsolationLevel } from '../../services/common/grpc/generated/tide/v1/IsolationLevel';
import type { ListOffsetsRequest__Input } from '../../services/common/grpc/generated/tide/v1/ListOffsetsRequest';
import type { ListOffsetsResponse } from '../../services/common/grpc/generated/tide/v1/ListOffsetsResponse';
import type { MetadataResponse } from '../../services/common/grpc/generated/tide/v1/MetadataResponse';
import type { ConnectionPool } from './connection';
import { FetchSession, type FetchSessionHandlers } from './fetch-session';
import { ProduceStream, type InFlightRequest, type ProduceStreamHandlers } from './produce-stream';

/** Promisifies one grpc-js unary call and maps its failure to a TideError. */
export function unary<T>(invoke: (callback: grpc.requestCallback<T>) => unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    invoke((err, value) => {
      if (err) reject(fromGrpcError(err));
      else resolve(value as T);
    });
  });
}

/** A call's failure as a TideError (gRPC status or `tide-error-code` trailer; a TideError as is). */
export const toTideError: (err: unknown) => TideError = fromGrpcError;

/** The error a response carries for one partition, with that partition as its context. */
export function partitionError(
  error: { code: string; message: string; retriable: boolean },
  topic: string,
  partition: number,
): TideError {
  const wire = fromWireError(error);
  return new TideError(wire.code, wire.message, {
    retriable: wire.retriable,
    context: { topic, partition },
  });
}

export { fromWireError };

/** A unary invocation on some stub: the stub, call options with the deadline, the callback. */
export type Invoke<C, T> = (
  client: C,
  options: grpc.CallOptions,
  callback: grpc.requestCallback<T>,
) => unknown;

export class BrokerCalls {
  constructor(
    readonly pool: ConnectionPool,
    /** Deadline of unary calls. */
    readonly requestTimeoutMs: number,
  ) {}

  /** A deadline `timeoutMs` (default `requestTimeoutMs`) from now, for grpc-js call options. */
  deadline(timeoutMs = this.requestTimeoutMs): Date {
    return new Date(Date.now() + timeoutMs);
  }

  /** Any unary call on any stub, with the deadline and error mapping of every call. */
  call<C, T>(client: C, invoke: Invoke<C, T>, timeoutMs?: number): Promise<T> {
    return unary<T>((cb) => invoke(client, { deadline: this.deadline(timeoutMs) }, cb));
  }

  /** A unary Broker call to `address`. */
  broker<T>(address: string, invoke: Invoke<BrokerClient, T>, timeoutMs?: number): Promise<T> {
    return this.call(this.pool.broker(address), invoke, timeoutMs);
  }

  /** A unary Admin call to `address` (deadline `timeoutMs`, default `requestTimeoutMs`). */
  admin<T>(address: string, invoke: Invoke<AdminClient, T>, timeoutMs?: number): Promise<T> {
    return this.call(this.pool.admin(address), invoke, timeoutMs);
  }

  /** Cluster metadata (all topics when `topics` is empty). */
  metadata(address: string, topics: string[], timeoutMs?: number): Promise<MetadataResponse> {
    return this.broker<MetadataResponse>(address, (c, o, cb) => c.Metadata({ topics }, o, cb), timeoutMs);
  }

  /** The stream of metadata updates a broker pushes (no deadline: it lives as long as the client). */
  watchMetadata(address: string): grpc.ClientReadableStream<MetadataResponse> {
    return this.pool.broker(address).WatchMetadata({ topics: [] });
  }

  /** Calls back once a connection to `address` is up, or with an error at `deadlineMs`. */
  waitForReady(address: string, deadlineMs: number, callback: (err: Error | undefined) => void): void {
    this.pool.broker(address).waitForReady(deadlineMs, callback);
  }

  /** A new producer id and epoch, from the controller through `address`. */
  initProducerId(address: string): Promise<InitProducerIdResponse> {
    return this.broker<InitProducerIdResponse>(address, (c, o, cb) => c.InitProducerId({}, o, cb));
  }

  /** One (long-polling) Fetch: the deadline covers the wait on top of the request timeout. */
  fetch(address: string, request: FetchRequest__Input): Promise<FetchResponse> {
    return this.broker<FetchResponse>(
      address,
      (c, o, cb) => c.Fetch(request, o, cb),
      this.requestTimeoutMs + (request.max_wait_ms ?? 0),
    );
  }

  listOffsets(address: string, request: ListOffsetsRequest__Input): Promise<ListOffsetsResponse> {
    return this.broker<ListOffsetsResponse>(address, (c, o, cb) => c.ListOffsets(request, o, cb));
  }

  /** A pipelined ProduceStream to `address` (produce-stream.ts). */
  produceStream<T extends InFlightRequest>(
    address: string,
    handlers: ProduceStreamHandlers<T>,
  ): ProduceStream<T> {
    return new ProduceStream<T>(this.pool.broker(address), address, handlers);
  }

  /** A FetchStream to `address` from the given positions (fetch-session.ts), on a fetch connection. */
  fetchStream(
    address: string,
    key: string,
    positions: { topic: string; partition: number; offset: number }[],
    maxBytes: number,
    handlers: FetchSessionHandlers,
    isolation?: IsolationLevel,
  ): FetchSession {
    return new FetchSession(
      this.pool.fetchBroker(address),
      address,
      key,
      positions,
      maxBytes,
      handlers,
      isolation,
    );
  }
}
