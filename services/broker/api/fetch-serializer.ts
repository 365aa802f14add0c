/**
 * FetchResponse serialisation without copying the batches: the response's other fields are
 * encoded as usual, then written with the record_batches tag and length into the read buffer's
 * headroom just before the batches (log/headroom.ts), and that one span is the message. Protobuf
 * allows fields in any order, so record_batches last decodes the same. Responses whose batches
 * are not in such a buffer (forwarded ones, empty ones) take the ordinary serializer.
 */
import type * as grpc from '@grpc/grpc-js';
import type { FetchResponse__Input } from '../../common/grpc/generated/tide/v1/FetchResponse';
import { headroomOf } from '../log';

/** Field 5 (record_batches), wire type 2 (length-delimited). */
const RECORD_BATCHES_TAG = (5 << 3) | 2;

type Serialize = (value: FetchResponse__Input) => Buffer;

export function zeroCopyFetchSerializer(standard: Serialize): Serialize {
  return (value) => {
    const batches = value.record_batches;
    if (!(batches instanceof Uint8Array) || batches.length === 0) return standard(value);
    const room = headroomOf(batches);
    if (room === 0) return standard(value); // not a read buffer (a forwarded response): encode once
    const { record_batches: _batches, ...rest } = value;
    const head = standard(rest);
    const prefix = head.length + 1 + varintSize(batches.length);
    if (room < prefix) return standard(value);
    const out = Buffer.from(batches.buffer, batches.byteOffset - prefix, prefix + batches.length);
    head.copy(out, 0);
    let p = head.length;
    out[p++] = RECORD_BATCHES_TAG;
    for (let n = batches.length; ; n >>>= 7) {
      if (n < 0x80) {
        out[p++] = n;
        break;
      }
      out[p++] = (n & 0x7f) | 0x80;
    }
    return out;
  };
}

/** The Broker service with Fetch and FetchStream responses serialised by zeroCopyFetchSerializer. */
export function withZeroCopyFetch(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = { ...service };
  for (const name of ['Fetch', 'FetchStream']) {
    const method = service[name];
    if (!method) throw new Error(`the Broker service has no ${name} method`);
    out[name] = {
      ...method,
      responseSerialize: zeroCopyFetchSerializer(method.responseSerialize as Serialize) as (
        value: unknown,
      ) => Buffer,
    };
  }
  return out;
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n >>>= 7;
    size++;
  }
  return size;
}
