/**
 * FetchResponse serialisation without copying the batches: the response's other fields are
 * encoded as usual, then written with the record_batches tag and length into the read buffer's
 * headroom just before the batches (log/headroom.ts), and that one span is the message. Protobuf
 * allows fields in any order, so record_batches last decodes the same. Responses whose batches
 * are not in such a buffer (forwarded ones, empty ones) take the ordinary serializer.
 */
import type * as grpc from '@grpc/grpc-js';
import type { FetchResponse__Input } from '../../common/grpc/generated/tide/v1/FetchResponse';
import { lengthDelimitedKey, uvarintSize, writeUvarint } from '../../common/grpc/protobuf-wire';
import { headroomOf, prependInHeadroom } from '../log';

/** FetchResponse field 5: record_batches. */
const RECORD_BATCHES_KEY = lengthDelimitedKey(5);

type Serialize = (value: FetchResponse__Input) => Buffer;

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
