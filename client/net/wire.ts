/**
 * Wire helpers of the client: method paths, the generated (proto-loader) serializers, and a
 * hand-written encoder for the produce fast path.
 *
 * `ProduceRequest` on the fast path is a handful of scalars plus one large `bytes` field.
 * proto-loader would run `fromObject` + protobufjs `encode` for every request; the encoder here
 * writes the few tag/varint bytes and copies the batch once, and the stream sends the result with
 * an identity serializer (what "identity serializers" buy in docs/performance.md). The tests decode
 * its output with the generated decoder.
 *
 *   field                 tag   wire type                          position
 *   2 topic               0x12  length-delimited (UTF-8)           first ...
 *   3 partition           0x18  varint (int32, non-negative here)
 *   4 acks                0x20  varint (enum)
 *   5 timeout_ms          0x28  varint (int32)
 *   6 record_batches      0x32  length-delimited
 *   1 correlation_id      0x08  varint (uint64)                    ... last, rewritten per send
 */
import { tideProto } from '../../services/common/grpc/proto';
import type { ProduceResponse } from '../../services/common/grpc/generated/tide/v1/ProduceResponse';
import type { FetchResponse } from '../../services/common/grpc/generated/tide/v1/FetchResponse';
import type { FetchStreamRequest__Input } from '../../services/common/grpc/generated/tide/v1/FetchStreamRequest';
import type { FetchStreamMultiResponse } from '../../services/common/grpc/generated/tide/v1/FetchStreamMultiResponse';

export const METHOD_PRODUCE_STREAM = '/tide.v1.Broker/ProduceStream';
export const METHOD_FETCH_STREAM = '/tide.v1.Broker/FetchStream';
export const METHOD_FETCH_STREAM_MULTI = '/tide.v1.Broker/FetchStreamMulti';

/** Wire values of the `Acks` enum. */
export const ACKS_WIRE = { none: 1, leader: 2, all: 3 } as const;
export type AcksOption = keyof typeof ACKS_WIRE;

/** The scalar part of a fast-path produce request; `recordBatches` is sent as is. */
export interface FastProduceRequest {
  correlationId: number;
  topic: string;
  partition: number;
  acks: AcksOption;
  timeoutMs: number;
  recordBatches: Buffer;
  /** A transactional producer's id (field 9): its leader joins the partition to the transaction. */
  transactionalId?: string;
}

function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

function writeVarint(buf: Buffer, at: number, value: number): number {
  while (value >= 0x80) {
    buf[at++] = (value % 128) | 0x80;
    value = Math.floor(value / 128);
  }
  buf[at++] = value;
  return at;
}

/** Room kept after the body for field 1: a tag byte and a varint of up to 2^53 (8 bytes). */
const CORRELATION_ROOM_BYTES = 9;

/** Where an encoded request's buffers come from (a pool, or plain allocation). */
export interface BufferSource {
  acquire(size: number): Buffer;
}

const ALLOCATE: BufferSource = { acquire: (size) => Buffer.allocUnsafe(size) };

/**
 * A ProduceRequest encoded once and resent as is: fields 2-6 (and 9) first, then field 1
 * (correlation_id) written into the tail for each send (protobuf fields may come in any order).
 * The buffer may be larger than the message (it comes from a pool).
 */
export class EncodedProduceRequest {
  constructor(
    readonly buffer: Buffer,
    readonly bodyLength: number,
  ) {}

  /** The message bytes for one send: a view of `buffer`, valid until the next call. */
  withCorrelationId(correlationId: number): Buffer {
    const buf = this.buffer;
    buf[this.bodyLength] = 0x08;
    const end = writeVarint(buf, this.bodyLength + 1, correlationId);
    return buf.subarray(0, end);
  }
}

/** Encodes everything of a fast-path ProduceRequest but its correlation id (one copy of the batch). */
export function encodeProduceBody(
  req: Omit<FastProduceRequest, 'correlationId'>,
  source: BufferSource = ALLOCATE,
): EncodedProduceRequest {
  const topicBytes = Buffer.byteLength(req.topic, 'utf8');
  const batchBytes = req.recordBatches.length;
  const acks = ACKS_WIRE[req.acks];
  const idBytes = req.transactionalId ? Buffer.byteLength(req.transactionalId, 'utf8') : 0;
  const bodyLength =
    (idBytes > 0 ? 1 + varintSize(idBytes) + idBytes : 0) +
    1 +
    varintSize(topicBytes) +
    topicBytes +
    1 +
    varintSize(req.partition) +
    1 +
    varintSize(acks) +
    1 +
    varintSize(req.timeoutMs) +
    1 +
    varintSize(batchBytes) +
    batchBytes;
  const out = source.acquire(bodyLength + CORRELATION_ROOM_BYTES);
  let at = 0;
  out[at++] = 0x12;
  at = writeVarint(out, at, topicBytes);
  at += out.write(req.topic, at, 'utf8');
  out[at++] = 0x18;
  at = writeVarint(out, at, req.partition);
  out[at++] = 0x20;
  at = writeVarint(out, at, acks);
  out[at++] = 0x28;
  at = writeVarint(out, at, req.timeoutMs);
  if (idBytes > 0) {
    out[at++] = 0x4a;
    at = writeVarint(out, at, idBytes);
    at += out.write(req.transactionalId!, at, 'utf8');
  }
  out[at++] = 0x32;
  at = writeVarint(out, at, batchBytes);
  req.recordBatches.copy(out, at);
  return new EncodedProduceRequest(out, bodyLength);
}

/** Encodes a whole fast-path ProduceRequest (protobuf) into a new buffer. */
export function encodeProduceRequest(req: FastProduceRequest): Buffer {
  return encodeProduceBody(req).withCorrelationId(req.correlationId);
}

/** The serializer of pre-encoded messages. */
export function identity(buf: Buffer): Buffer {
  return buf;
}

/** Generated deserializer of ProduceResponse (small messages; protobufjs is fine here). */
export function decodeProduceResponse(buf: Buffer): ProduceResponse {
  return tideProto().Broker.service.ProduceStream.responseDeserialize(buf);
}

export function encodeFetchStreamRequest(req: FetchStreamRequest__Input): Buffer {
  return tideProto().Broker.service.FetchStream.requestSerialize(req);
}

/** Generated deserializer; protobufjs slices `bytes` fields out of the input without copying. */
export function decodeFetchResponse(buf: Buffer): FetchResponse {
  return tideProto().Broker.service.FetchStream.responseDeserialize(buf);
}

/** Generated deserializer of FetchStreamMulti's messages (several partitions' FetchResponses). */
export function decodeFetchStreamMultiResponse(buf: Buffer): FetchStreamMultiResponse {
  return tideProto().Broker.service.FetchStreamMulti.responseDeserialize(buf);
}
