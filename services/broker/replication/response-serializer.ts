/**
 * ReplicaFetchResponse serialisation without copying the batches of a log read (the fetch path's
 * trick, api/fetch-serializer.ts, for replication): the partition whose batches came from a read
 * buffer (log/headroom.ts) — the largest, when several did — is encoded last, and everything before
 * its batches (the other partitions, its own key and length, its other fields, the batches' key and
 * length) is written into the read buffer's headroom, so that one span is the message. A repeated
 * field's entries decode in the order they are encoded: the follower sees that partition last,
 * which it does not mind (it matches answers to its request by topic and partition). Anything else,
 * or a prefix larger than the headroom, takes the ordinary serializer.
 *
 * Why it matters: every buffer the leader allocates counts as V8 external memory, and on a small
 * heap external memory is what starts full (mark-compact) garbage collections. A reassignment
 * copy serialised the ordinary way allocated three bytes per byte moved (the read, this encoding,
 * grpc-js's frame); this leaves two.
 *
 *   ReplicaFetchResponse  { repeated ReplicaFetchPartitionResponse partitions = 1; }
 *   ReplicaFetchPartitionResponse { ... bytes record_batches = 7; ... }
 */
import type * as grpc from '@grpc/grpc-js';
import type { ReplicaFetchPartitionResponse__Input } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchPartitionResponse';
import type { ReplicaFetchResponse__Input } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchResponse';
import { lengthDelimitedKey, readUvarint, uvarintSize, writeUvarint } from '../../common/grpc/protobuf-wire';
import { headroomOf, prependInHeadroom } from '../log';

/** ReplicaFetchResponse field 1: partitions. */
const PARTITIONS_KEY = lengthDelimitedKey(1);
/** ReplicaFetchPartitionResponse field 7: record_batches. */
const RECORD_BATCHES_KEY = lengthDelimitedKey(7);

type Serialize = (value: ReplicaFetchResponse__Input) => Buffer;

export function zeroCopyReplicaFetchSerializer(standard: Serialize): Serialize {
  return (value) => {
    const partitions = value.partitions ?? [];
    const chosen = largestReadBuffer(partitions);
    if (chosen < 0) return standard(value);
    const { record_batches, ...fields } = partitions[chosen];
    const batches = record_batches as Uint8Array;
    // The other partitions' batches go in front too: skip the attempt when they cannot fit.
    const otherBatchBytes = partitions.reduce(
      (sum, p, i) => (i === chosen ? sum : sum + ((p.record_batches as Uint8Array | undefined)?.length ?? 0)),
      0,
    );
    if (otherBatchBytes >= headroomOf(batches)) return standard(value);
    const others = standard({ partitions: partitions.filter((_, i) => i !== chosen) });
    // The chosen partition alone without its batches: its key, its length, then its fields.
    const alone = standard({ partitions: [fields] });
    if (alone[0] !== PARTITIONS_KEY) return standard(value);
    const ownFields = alone.subarray(readUvarint(alone, 1).next);
    const entryLength = ownFields.length + 1 + uvarintSize(batches.length) + batches.length;
    const prefix = Buffer.allocUnsafe(
      others.length + 1 + uvarintSize(entryLength) + ownFields.length + 1 + uvarintSize(batches.length),
    );
    let at = others.copy(prefix, 0);
    prefix[at++] = PARTITIONS_KEY;
    at = writeUvarint(prefix, at, entryLength);
    at += ownFields.copy(prefix, at);
    prefix[at++] = RECORD_BATCHES_KEY;
    writeUvarint(prefix, at, batches.length);
    return prependInHeadroom(batches, prefix) ?? standard(value);
  };
}

/** The index of the partition with the most batch bytes in a read buffer; -1 when none has any. */
function largestReadBuffer(partitions: readonly ReplicaFetchPartitionResponse__Input[]): number {
  let chosen = -1;
  let chosenBytes = 0;
  partitions.forEach((p, i) => {
    const batches = p.record_batches;
    if (!(batches instanceof Uint8Array) || batches.length <= chosenBytes || headroomOf(batches) === 0)
      return;
    chosen = i;
    chosenBytes = batches.length;
  });
  return chosen;
}

/** The Replication service with Replicate's answers serialised by zeroCopyReplicaFetchSerializer. */
export function withZeroCopyReplication(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const method = service.Replicate;
  if (!method) throw new Error('the Replication service has no Replicate method');
  return {
    ...service,
    Replicate: {
      ...method,
      responseSerialize: zeroCopyReplicaFetchSerializer(method.responseSerialize as Serialize) as (
        value: unknown,
      ) => Buffer,
    },
  };
}
