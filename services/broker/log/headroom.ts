/**
 * Read buffers with room in front of their data. The fetch and replication paths write a
 * response's protobuf header into the bytes just before the batches they serve, so serialising a
 * FetchResponse or a ReplicaFetchResponse copies nothing (grpc-js's own frame copy is the only one
 * left). Only a buffer made here may be written before its data: each is made for one read and
 * held by nobody else.
 */

/** Room for a FetchResponse's other fields (topic names are at most 249 bytes) and the tag. */
export const READ_HEADROOM_BYTES = 512;

const owned = new WeakSet<ArrayBufferLike>();

/** A buffer of `length` bytes with READ_HEADROOM_BYTES of its own memory in front of it. */
export function allocateWithHeadroom(length: number): Buffer {
  // allocUnsafeSlow: never a slice of Node's shared pool, whose neighbours belong to others.
  const whole = Buffer.allocUnsafeSlow(length + READ_HEADROOM_BYTES);
  owned.add(whole.buffer);
  return whole.subarray(READ_HEADROOM_BYTES);
}

/** How many bytes just before `view` may be overwritten: 0 unless it lies in such a buffer. */
export function headroomOf(view: Uint8Array): number {
  return owned.has(view.buffer) ? view.byteOffset : 0;
}

/**
 * `prefix` written just before `view` in its headroom, and the span from the prefix's first byte to
 * the view's last: undefined when `view` has less room than that (then nothing is written).
 */
export function prependInHeadroom(view: Uint8Array, prefix: Uint8Array): Buffer | undefined {
  if (prefix.length > headroomOf(view)) return undefined;
  const out = Buffer.from(view.buffer, view.byteOffset - prefix.length, prefix.length + view.length);
  out.set(prefix, 0);
  return out;
}
