/**
 * FetchResponse serialisation without copying the batches: the response's other fields are
 * encoded as usual, then written with the record_batches tag and length into the read buffer's
 * headroom just before the batches (log/headroom.ts), and that one span is the message. Protobuf
 * allows fields in any order, so record_batches last decodes the same. Responses whose batches
 * are not in such a buffer (forwarded ones, empty ones) take the ordinary serializer.
 *
 * FetchStreamMulti's messages (FetchStreamMultiResponse: field 1 repeated FetchResponse, field 2
 * throttle_time_ms) are written the same way when they carry one partition; with several, the
 * parts are laid out one after the other in one new buffer (one copy of the batches, where grpc-js
 * would otherwise frame each small message on its own).
 */
import type * as grpc from '@grpc/grpc-js';
import type { FetchResponse__Input } from '../../common/grpc/generated/tide/v1/FetchResponse';
import type { FetchStreamMultiResponse__Input } from '../../common/grpc/generated/tide/v1/FetchStreamMultiResponse';
import { lengthDelimitedKey, uvarintSize, writeUvarint } from '../../common/grpc/protobuf-wire';
import { headroomOf, prependInHeadroom } from '../log';

/** FetchResponse field 5: record_batches. */
const RECORD_BATCHES_KEY = lengthDelimitedKey(5);
/** FetchStreamMultiResponse field 1: partitions. */
const PARTITIONS_KEY = lengthDelimitedKey(1);
/** FetchStreamMultiResponse field 2: throttle_time_ms (varint). */
const THROTTLE_KEY = 2 << 3;

type Serialize = (value: FetchResponse__Input) => Buffer;
type SerializeMulti = (value: FetchStreamMultiResponse__Input) => Buffer;

export function zeroCopyFetchSerializer(standard: Serialize): Serialize {
  return (value) => {
    const batches = value.record_batches;
    if (!(batches instanceof Uint8Array) || batches.length === 0) return standard(value);
    if (headroomOf(batches) === 0) return standard(value); // not a read buffer (a forwarded response): encode once
    const { record_batches: _batches, ...rest } = value;
    const head = standard(rest);
    const prefix = Buffer.allocUnsafe(head.length + 1 + uvarintSize(batches.length));
    head.copy(prefix, 0);
    prefix[head.length] = RECORD_BATCHES_KEY;
    writeUvarint(prefix, head.length + 1, batches.length);
    return prependInHeadroom(batches, prefix) ?? standard(value);
  };
}

/** One partition's answer split into its encoded other fields and its batches (possibly empty). */
interface Part {
  head: Buffer;
  batches: Uint8Array;
  /** The encoded FetchResponse's length: head, then record_batches' key, length and bytes. */
  size: number;
}

function partOf(standard: Serialize, value: FetchResponse__Input): Part {
  const batches = value.record_batches;
  if (!(batches instanceof Uint8Array) || batches.length === 0) {
    const head = standard(value);
    return { head, batches: new Uint8Array(0), size: head.length };
  }
  const { record_batches: _batches, ...rest } = value;
  const head = standard(rest);
  return { head, batches, size: head.length + 1 + uvarintSize(batches.length) + batches.length };
}

/** Writes the part's key, length, head and record_batches' key and length; returns the end. */
function writePartHeader(out: Buffer, at: number, part: Part): number {
  out[at++] = PARTITIONS_KEY;
  at = writeUvarint(out, at, part.size);
  at += part.head.copy(out, at);
  if (part.batches.length === 0) return at;
  out[at++] = RECORD_BATCHES_KEY;
  return writeUvarint(out, at, part.batches.length);
}

export function multiFetchSerializer(standard: Serialize): SerializeMulti {
  return (value) => {
    const parts = (value.partitions ?? []).map((p) => partOf(standard, p));
    const throttleMs = value.throttle_time_ms ?? 0;
    const throttleBytes = throttleMs > 0 ? 1 + uvarintSize(throttleMs) : 0;
    let total = throttleBytes;
    for (const part of parts) total += 1 + uvarintSize(part.size) + part.size;
    const writeThrottle = (out: Buffer) => {
      if (throttleBytes === 0) return 0;
      out[0] = THROTTLE_KEY;
      return writeUvarint(out, 1, throttleMs);
    };
    const only = parts.length === 1 ? parts[0] : undefined;
    if (only && headroomOf(only.batches) > 0) {
      const prefix = Buffer.allocUnsafe(total - only.batches.length);
      writePartHeader(prefix, writeThrottle(prefix), only);
      const span = prependInHeadroom(only.batches, prefix);
      if (span) return span;
    }
    const out = Buffer.allocUnsafe(total);
    let at = writeThrottle(out);
    for (const part of parts) {
      at = writePartHeader(out, at, part);
      out.set(part.batches, at);
      at += part.batches.length;
    }
    return out;
  };
}

/**
 * The Broker service with Fetch and FetchStream responses serialised by zeroCopyFetchSerializer
 * and FetchStreamMulti's by multiFetchSerializer.
 */
export function withZeroCopyFetch(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = { ...service };
  for (const name of ['Fetch', 'FetchStream', 'FetchStreamMulti']) {
    if (!service[name]) throw new Error(`the Broker service has no ${name} method`);
  }
  const fetchSerialize = service['Fetch'].responseSerialize as Serialize;
  for (const name of ['Fetch', 'FetchStream']) {
    const method = service[name];
    out[name] = {
      ...method,
      responseSerialize: zeroCopyFetchSerializer(method.responseSerialize as Serialize) as (
        value: unknown,
      ) => Buffer,
    };
  }
  out['FetchStreamMulti'] = {
    ...service['FetchStreamMulti'],
    responseSerialize: multiFetchSerializer(fetchSerialize) as (value: unknown) => Buffer,
  };
  return out;
}
