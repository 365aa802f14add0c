/**
 * Zero-copy ReplicaFetchResponse serialisation: the message it builds in a read buffer's headroom
 * decodes to the same partitions as the ordinary one (the one carrying the read buffer last), it
 * copies none of those batches, and anything else takes the ordinary path.
 */
import { internalProto } from '../../../services/common/grpc/proto';
import { withZeroCopyReplication } from '../../../services/broker/replication/response-serializer';
import { allocateWithHeadroom, READ_HEADROOM_BYTES } from '../../../services/broker/log/headroom';
import type {
  ReplicaFetchPartitionResponse,
  ReplicaFetchPartitionResponse__Input,
} from '../../../services/common/grpc/generated/tide/v1/internal/ReplicaFetchPartitionResponse';
import type {
  ReplicaFetchResponse,
  ReplicaFetchResponse__Input,
} from '../../../services/common/grpc/generated/tide/v1/internal/ReplicaFetchResponse';

const service = internalProto().replication.Replication.service;
const ordinary = (value: ReplicaFetchResponse__Input) => service.Replicate.responseSerialize(value);
const zeroCopy = (value: ReplicaFetchResponse__Input) =>
  withZeroCopyReplication(service).Replicate.responseSerialize(value);

const decode = (bytes: Buffer) => service.Replicate.responseDeserialize(bytes) as ReplicaFetchResponse;

/** The decoded partitions by topic and partition, batches compared as bytes (jest is slow on MiBs). */
function expectSamePartitions(actual: Buffer, expected: Buffer): void {
  const key = (p: ReplicaFetchPartitionResponse) => `${p.topic}/${p.partition}`;
  const byKey = (bytes: Buffer) => new Map(decode(bytes).partitions.map((p) => [key(p), p]));
  const a = byKey(actual);
  const e = byKey(expected);
  expect([...a.keys()].sort()).toEqual([...e.keys()].sort());
  for (const [k, { record_batches: batchesA, ...restA }] of a) {
    const { record_batches: batchesE, ...restE } = e.get(k)!;
    expect(restA).toEqual(restE);
    expect(Buffer.compare(batchesA, batchesE)).toBe(0);
  }
}

function readBuffer(length: number): Buffer {
  const buf = allocateWithHeadroom(length);
  for (let i = 0; i < buf.length; i++) buf[i] = (i * 31) & 0xff;
  return buf;
}

function partition(index: number, batches?: Buffer): ReplicaFetchPartitionResponse__Input {
  return {
    topic: `moving-é-${index}`,
    partition: index,
    high_watermark: 123_456_789_012 + index,
    log_start_offset: 42,
    leader_log_end_offset: 123_456_789_100,
    ...(batches ? { record_batches: batches } : {}),
  };
}

test.each([1, 127, 128, 300, 16_384, 1 << 20])('%i bytes of batches: same partitions, no copy', (size) => {
  const batches = readBuffer(size);
  const value = { partitions: [partition(0), partition(1, batches), partition(2)] };
  const out = zeroCopy(value);
  expectSamePartitions(out, ordinary(value));
  expect(out.buffer).toBe(batches.buffer); // built in place
  expect(out.byteOffset + out.length).toBe(batches.byteOffset + batches.length);
  expect(decode(out).partitions.map((p) => p.partition)).toEqual([0, 2, 1]); // the read one last
});

test('of several read buffers the largest is served in place, the others are encoded in front', () => {
  const small = readBuffer(100);
  const large = readBuffer(5000);
  const tail = Buffer.from('from the replication tail');
  const value = { partitions: [partition(0, small), partition(1, tail), partition(2, large)] };
  const out = zeroCopy(value);
  expectSamePartitions(out, ordinary(value));
  expect(out.buffer).toBe(large.buffer);
});

test('batches not in a read buffer, or without room for the rest, are serialised the usual way', () => {
  const foreign = { partitions: [partition(0, Buffer.from('not from a segment read'))] };
  expect(zeroCopy(foreign)).toEqual(ordinary(foreign));

  // Other partitions too many for the headroom: nothing fits in front of the batches.
  const batches = readBuffer(100);
  const crowded = {
    partitions: [
      partition(0, batches),
      ...Array.from({ length: READ_HEADROOM_BYTES / 16 }, (_, i) => partition(i + 1)),
    ],
  };
  const out = zeroCopy(crowded);
  expect(out.buffer).not.toBe(batches.buffer);
  expectSamePartitions(out, ordinary(crowded));
});

test('answers without batches, with errors, or with nothing at all are unchanged', () => {
  for (const value of [
    { partitions: [] },
    { partitions: [partition(0), partition(1)] },
    { partitions: [{ topic: 't', partition: 3, error_code: 'NOT_LEADER', error_message: 'broker 1 does' }] },
    { partitions: [{ ...partition(0), diverging_epoch: { epoch: 4, end_offset: 77 } }] },
    { partitions: [partition(0, readBuffer(0))] },
  ]) {
    expect(zeroCopy(value)).toEqual(ordinary(value));
  }
});
