/**
 * Ranges of keys in the order of their serde's bytes (Kafka's order for range() and prefixScan()),
 * as a half-open byte interval every key-value store can scan: from `from` (included) up to
 * `until` (excluded); null leaves a side open.
 */
import type { Serde } from '../serdes';
import { StreamsError } from '../errors';
import { justAfter } from './lmdb-keys';

export interface ByteRange {
  from: Buffer | null;
  until: Buffer | null;
}

/** Every key. */
export const WHOLE_RANGE: ByteRange = { from: null, until: null };

/** [from, to] with both bounds included, as range(from, to); a null bound is open. */
export function inclusiveRange<K>(serde: Serde<K>, from: K | null, to: K | null): ByteRange {
  return inclusiveByteRange(
    from === null || from === undefined ? null : serde.serialize(from),
    to === null || to === undefined ? null : serde.serialize(to),
  );
}

/** [from, to] of key bytes, both included; null: open. */
export function inclusiveByteRange(from: Buffer | null, to: Buffer | null): ByteRange {
  return { from, until: to === null ? null : justAfter(to) };
}

/** Every key whose bytes start with `prefix`. */
export function prefixByteRange(prefix: Buffer): ByteRange {
  // The first byte string above every extension of `prefix`: its last byte below 0xff, plus one.
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return { from: prefix, until: null };
  const until = Buffer.from(prefix.subarray(0, end));
  until[end - 1]!++;
  return { from: prefix, until };
}

export function inByteRange(key: Buffer, r: ByteRange): boolean {
  return (
    (r.from === null || Buffer.compare(key, r.from) >= 0) &&
    (r.until === null || Buffer.compare(key, r.until) < 0)
  );
}

/** Range scans need the key serde's bytes; stores built without one (internal buffers) refuse. */
export function requireKeySerde<K>(store: string, serde: Serde<K> | undefined): Serde<K> {
  if (!serde) {
    throw new StreamsError(
      'STORE',
      `store ${store} has no key serde, so its keys have no order to scan a range in`,
    );
  }
  return serde;
}

/**
 * The typed reads a key-value store derives from its scan() — range, reverseRange, reverseAll,
 * prefixScan — so each store implements only the scan of a byte range.
 */
export class KeyRangeReads<K, V> {
  constructor(
    private readonly store: string,
    private readonly keySerde: Serde<K> | undefined,
    private readonly scan: (range: ByteRange) => [K, V][],
  ) {}

  range(from: K | null, to: K | null): IterableIterator<[K, V]> {
    return this.scan(inclusiveRange(requireKeySerde(this.store, this.keySerde), from, to)).values();
  }

  reverseRange(from: K | null, to: K | null): IterableIterator<[K, V]> {
    return this.scan(inclusiveRange(requireKeySerde(this.store, this.keySerde), from, to))
      .reverse()
      .values();
  }

  reverseAll(): IterableIterator<[K, V]> {
    return this.scan(WHOLE_RANGE).reverse().values();
  }

  prefixScan<P>(prefix: P, prefixSerde: Serde<P>): IterableIterator<[K, V]> {
    return this.scan(prefixByteRange(prefixSerde.serialize(prefix))).values();
  }
}
