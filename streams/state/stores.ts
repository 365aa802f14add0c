/**
 * The store interfaces processors and interactive queries use. They are synchronous, as record
 * processing is: a record goes through the whole topology before the next is read. Every write
 * is reported to `onChange` (the changelog writer in the runtime; nothing in the test driver).
 */
import type { Serde, Window } from '../serdes';
import type { ByteRange } from './key-range';

export type StoreKind = 'keyValue' | 'window' | 'session';

export interface StateStore {
  readonly name: string;
  readonly kind: StoreKind;
  readonly persistent: boolean;
  /** Number of entries (for metrics and tests). */
  size(): number;
  flush(): void;
  close(): void;
}

export interface ReadOnlyKeyValueStore<K, V> {
  get(key: K): V | null;
  all(): IterableIterator<[K, V]>;
  /**
   * The entries whose keys lie between `from` and `to`, both included (null: open), in the order
   * of the key serde's bytes, as Kafka's range(). The entries are read when it is called: writes
   * made while iterating are not seen.
   */
  range(from: K | null, to: K | null): IterableIterator<[K, V]>;
  /** range(), from the highest key to the lowest. */
  reverseRange(from: K | null, to: K | null): IterableIterator<[K, V]>;
  /** Every entry, from the highest key bytes to the lowest. */
  reverseAll(): IterableIterator<[K, V]>;
  /** The entries whose key bytes start with `prefixSerde`'s bytes of `prefix`, in key-byte order. */
  prefixScan<P>(prefix: P, prefixSerde: Serde<P>): IterableIterator<[K, V]>;
}

export interface KeyValueStore<K, V> extends StateStore, ReadOnlyKeyValueStore<K, V> {
  readonly kind: 'keyValue';
  put(key: K, value: V | null): void;
  delete(key: K): V | null;
  /** The entries with key bytes in `range`, in key-byte order (what range and prefixScan read). */
  scan(range: ByteRange): [K, V][];
}

export interface WindowEntry<K, V> {
  key: K;
  window: Window;
  value: V;
}

export interface ReadOnlyWindowStore<K, V> {
  fetch(key: K, windowStart: number): V | null;
  /** Windows of `key` starting in [fromStart, toStart], by start. */
  fetchRange(key: K, fromStart: number, toStart: number): WindowEntry<K, V>[];
  all(): WindowEntry<K, V>[];
}

export interface WindowStore<K, V> extends StateStore, ReadOnlyWindowStore<K, V> {
  readonly kind: 'window';
  readonly windowSizeMs: number;
  readonly retentionMs: number;
  put(key: K, windowStart: number, value: V | null): void;
  /** Drops windows that start before `minStart` (retention). */
  expire(minStart: number): void;
}

export interface ReadOnlySessionStore<K, V> {
  /** Sessions of `key` with end >= earliestEnd and start <= latestStart. */
  findSessions(key: K, earliestEnd: number, latestStart: number): WindowEntry<K, V>[];
  fetch(key: K): WindowEntry<K, V>[];
  all(): WindowEntry<K, V>[];
}

export interface SessionStore<K, V> extends StateStore, ReadOnlySessionStore<K, V> {
  readonly kind: 'session';
  put(key: K, window: Window, value: V | null): void;
  remove(key: K, window: Window): void;
  expire(minEnd: number): void;
}

/** A write to a store, as the changelog records it (value null: a delete). */
export interface StoreChange {
  store: string;
  key: unknown;
  window?: Window;
  value: unknown;
  /**
   * The key serde's bytes of `key` and the value's as the store wrote them (stamped when the
   * store stamps values; null for a delete), when the store has them at hand (the LMDB stores):
   * the changelog record reuses them instead of serializing again. Only stores built from the
   * same StoreDef as the changelog's codec may set them.
   */
  keyBytes?: Buffer;
  valueBytes?: Buffer | null;
}
export type ChangeListener = (change: StoreChange) => void;

/**
 * Writes one changelog record in the bytes a store keeps: the key serde's bytes, the window
 * (window and session stores; 0 for key-value ones), the value serde's bytes (null: a delete).
 * Arguments rather than an object: restore calls it for every record.
 */
export type RawApply = (key: Buffer, windowStart: number, windowEnd: number, value: Buffer | null) => void;

/** A store that applies changelog records as bytes, many in one write (the LMDB stores). */
export interface BatchRestorable {
  /** Opens one write, in which `fill` applies records in order through `apply`; no change events. */
  restoreBatch(fill: (apply: RawApply) => void): void;
  /**
   * Like restoreBatch, the writes done in the background: resolves once they are committed.
   * Nothing may read or write the store before.
   */
  restoreQueued(fill: (apply: RawApply) => void): Promise<void>;
}

export function isBatchRestorable(store: StateStore): store is StateStore & BatchRestorable {
  return typeof (store as Partial<BatchRestorable>).restoreBatch === 'function';
}

/**
 * A store whose writes can share one storage transaction (the LMDB stores): `fn` runs inside it,
 * reads in it see its writes, and everything it wrote is committed when it returns or throws (a
 * throw keeps the writes made before it, as separate writes would have).
 */
export interface WriteScoped {
  inWriteScope(fn: () => void): void;
}

export function isWriteScoped(store: StateStore): store is StateStore & WriteScoped {
  return typeof (store as Partial<WriteScoped>).inWriteScope === 'function';
}

/**
 * Batch writes, for the record cache's flush (caching-*.ts): one storage transaction for many
 * entries, then one change event per entry, in order. Stores without them get one put per entry.
 */
export interface KeyValueBatch<K, V> {
  putAll(entries: readonly (readonly [K, V | null])[]): void;
}
export interface WindowPut<K, V> {
  key: K;
  windowStart: number;
  /** null: delete the window. */
  value: V | null;
}
export interface WindowBatch<K, V> {
  putAll(entries: readonly WindowPut<K, V>[]): void;
}
export interface SessionPut<K, V> {
  key: K;
  window: Window;
  /** null: remove the session. */
  value: V | null;
}
export interface SessionBatch<K, V> {
  putAll(entries: readonly SessionPut<K, V>[]): void;
}
