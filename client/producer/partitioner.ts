/**
 * Kafka's default key partitioner: murmur2 of the key bytes (Java `Utils.murmur2`, seed 0x9747b28c),
 * made non-negative with `& 0x7fffffff` (Java `Utils.toPositive`), modulo the partition count. Keys
 * land on the same partitions as with the Java client and kafkajs's DefaultPartitioner.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/** Java's `Utils.murmur2(byte[])`: a signed 32-bit hash of `key`. */
export function murmur2(key: Uint8Array): number {
  const length = key.length;
  let h = SEED ^ length;
  const tail = length & ~3;
  for (let i = 0; i < tail; i += 4) {
    let k = key[i] | (key[i + 1] << 8) | (key[i + 2] << 16) | (key[i + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const rest = length & 3;
  if (rest === 3) h ^= key[tail + 2] << 16;
  if (rest >= 2) h ^= key[tail + 1] << 8;
  if (rest >= 1) h = Math.imul(h ^ key[tail], M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition in [0, partitionCount) that Kafka's default partitioner picks for `key`. */
export function partitionForKey(key: Uint8Array, partitionCount: number): number {
  if (!Number.isInteger(partitionCount) || partitionCount < 1) {
    throw new RangeError(`partitionCount must be a positive integer, got ${partitionCount}`);
  }
  return (murmur2(key) & 0x7fffffff) % partitionCount;
}
