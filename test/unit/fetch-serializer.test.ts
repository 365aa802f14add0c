/**
 * Zero-copy FetchResponse serialisation: the message it builds in a read buffer's headroom decodes
 * exactly like the ordinary one, it copies none of the batches, and anything not in such a buffer
 * takes the ordinary path.
 */
import { tideProto } from '../../services/common/grpc/proto';
import { withZeroCopyFetch } from '../../services/broker/api/fetch-serializer';
import { allocateWithHeadroom, headroomOf, READ_HEADROOM_BYTES } from '../../services/broker/log/headroom';
import type { FetchResponse__Input } from '../../services/common/grpc/generated/tide/v1/FetchResponse';

const service = tideProto().Broker.service;
const zeroCopy = withZeroCopyFetch(service);
const decode = (bytes: Buffer) =>
  service.FetchStream.responseDeserialize(bytes) as unknown as Record<string, unknown>;

/** Both messages decode to the same fields (batches compared as bytes: jest's deep equality is slow on MiBs). */
function expectSameMessage(actual: Buffer, expected: Buffer): void {
  const { record_batches: a, ...restA } = decode(actual);
  const { record_batches: b, ...restB } = decode(expected);
  expect(restA).toEqual(restB);
  expect(Buffer.compare(a as Buffer, b as Buffer)).toBe(0);
}

function response(batches: Buffer): FetchResponse__Input {
  return {
    topic: 'orders-é',
    partition: 7,
    high_watermark: 123_456_789_012,
    log_start_offset: 42,
    next_offset: 123_456_789_000,
    record_batches: batches,
  };
}

function readBuffer(length: number, from = 0): Buffer {
  const buf = allocateWithHeadroom(length);
  for (let i = 0; i < buf.length; i++) buf[i] = (i * 31) & 0xff;
  return buf.subarray(from);
}

test.each([1, 127, 128, 300, 16_384, 1 << 20])('%i bytes of batches: same message, no copy', (size) => {
  const batches = readBuffer(size);
  const value = response(batches);
  const ordinary = service.FetchStream.responseSerialize(value);
  for (const method of ['Fetch', 'FetchStream']) {
    const out = zeroCopy[method].responseSerialize(value);
    expectSameMessage(out, ordinary);
    expect(out.buffer).toBe(batches.buffer); // built in place
    expect(out.byteOffset + out.length).toBe(batches.byteOffset + batches.length);
  }
});

test('batches after bytes the read walked over use that room too', () => {
  const batches = readBuffer(4096, 1000);
  const out = zeroCopy.FetchStream.responseSerialize(response(batches));
  expectSameMessage(out, service.FetchStream.responseSerialize(response(batches)));
  expect(out.buffer).toBe(batches.buffer);
});

test('batches not in a read buffer, or without room for the header, are serialised the usual way', () => {
  const foreign = Buffer.from('not from a segment read');
  expect(headroomOf(foreign)).toBe(0);
  const value = response(foreign);
  const out = zeroCopy.FetchStream.responseSerialize(value);
  expect(foreign.toString()).toBe('not from a segment read');
  expectSameMessage(out, service.FetchStream.responseSerialize(value));

  // A topic name too long for the headroom: the header does not fit in front.
  const tight = readBuffer(100);
  const long = { ...response(tight), topic: 'x'.repeat(READ_HEADROOM_BYTES) };
  const fallback = zeroCopy.FetchStream.responseSerialize(long);
  expect(fallback.buffer).not.toBe(tight.buffer);
  expectSameMessage(fallback, service.FetchStream.responseSerialize(long));
});

test('responses with no batches or with an error are unchanged', () => {
  const empty = { ...response(Buffer.alloc(0)) };
  expect(zeroCopy.FetchStream.responseSerialize(empty)).toEqual(service.FetchStream.responseSerialize(empty));
  const failed = {
    topic: 't',
    partition: 0,
    next_offset: 5,
    error: { code: 'OFFSET_OUT_OF_RANGE', message: 'offset 5 is past the end', retriable: false },
  };
  expect(zeroCopy.FetchStream.responseSerialize(failed)).toEqual(
    service.FetchStream.responseSerialize(failed),
  );
});

describe('FetchStreamMulti messages', () => {
  const decodeMulti = (bytes: Buffer) =>
    service.FetchStreamMulti.responseDeserialize(bytes) as unknown as {
      partitions: Record<string, unknown>[];
      throttle_time_ms: number;
    };
  const serializeMulti = zeroCopy.FetchStreamMulti.responseSerialize as (value: unknown) => Buffer;

  function expectDecodesLike(
    out: Buffer,
    value: { partitions: FetchResponse__Input[]; throttle_time_ms?: number },
  ) {
    const got = decodeMulti(out);
    const want = decodeMulti(service.FetchStreamMulti.responseSerialize(value));
    expect(got.throttle_time_ms).toBe(want.throttle_time_ms);
    expect(got.partitions.length).toBe(want.partitions.length);
    got.partitions.forEach((part, i) => {
      const { record_batches: a, ...restA } = part;
      const { record_batches: b, ...restB } = want.partitions[i];
      expect(restA).toEqual(restB);
      expect(Buffer.compare(a as Buffer, b as Buffer)).toBe(0);
    });
  }

  test.each([0, 250])('several partitions, one without batches (an error), throttle %i ms', (throttleMs) => {
    const value = {
      partitions: [
        { ...response(readBuffer(300)), partition: 1 },
        {
          topic: 'orders-é',
          partition: 2,
          next_offset: 9,
          error: { code: 'OFFSET_OUT_OF_RANGE', message: 'm', retriable: false },
        },
        { ...response(Buffer.from('plain bytes, not a read buffer')), partition: 3 },
        { ...response(readBuffer(1 << 16)), partition: 4 },
      ],
      throttle_time_ms: throttleMs,
    };
    expectDecodesLike(serializeMulti(value), value);
  });

  test.each([1, 200, 1 << 20])('one partition of %i bytes in a read buffer: built in place', (size) => {
    const batches = readBuffer(size);
    const value = { partitions: [response(batches)], throttle_time_ms: 3 };
    const out = serializeMulti(value);
    expectDecodesLike(out, value);
    expect(out.buffer).toBe(batches.buffer);
    expect(out.byteOffset + out.length).toBe(batches.byteOffset + batches.length);
  });

  test('no partitions at all is an empty message', () => {
    expectDecodesLike(serializeMulti({ partitions: [] }), { partitions: [] });
  });
});
