/**
 * A key-value store behind the record cache (record-cache.ts). Reads are served from the cache
 * (a miss reads the store once and keeps the result); writes go to the cache only. A flush —
 * every commit, and an eviction of a dirty entry — writes the dirty entries to the store in one
 * batch (one LMDB transaction), so the store's change events (the changelog) come once per dirty
 * key, in the order of their last write; then the flush listeners run (the processor's
 * deduplicated forwards, processors/common.ts).
 */
import type { Serde } from '../serdes';
import { keyId } from './key-id';
import { KeyRangeReads, inByteRange, requireKeySerde, type ByteRange } from './key-range';
import type { CacheNamespace, RecordCache } from './record-cache';
import type { KeyValueBatch, KeyValueStore } from './stores';

/** A store the record cache sits in front of; the runtime and the test driver flush it at commit. */
export interface CachingStore {
  readonly cached: true;
  /** Runs after each flush (commit or eviction), once the store has the flushed entries. */
  onFlush(listener: () => void): void;
  /** Whether writes are waiting for a flush. */
  hasDirty(): boolean;
}

export function isCachingStore(store: unknown): store is CachingStore {
  return typeof store === 'object' && store !== null && (store as Partial<CachingStore>).cached === true;
}

export class CachingKeyValueStore<K, V> implements KeyValueStore<K, V>, CachingStore {
  readonly kind = 'keyValue' as const;
  readonly cached = true as const;
  readonly name: string;
  readonly persistent: boolean;
  private readonly ns: CacheNamespace<K>;
  private readonly listeners: (() => void)[] = [];
  private readonly reads: KeyRangeReads<K, V>;
  private lastKey: unknown = undefined;
  private lastId = '';

  /** `keySerde` orders the keys for range scans, as the store's own. */
  constructor(
    readonly inner: KeyValueStore<K, V>,
    cache: RecordCache,
    namespace: string,
    private readonly keySerde?: Serde<K>,
  ) {
    this.name = inner.name;
    this.reads = new KeyRangeReads(inner.name, keySerde, (range) => this.scan(range));
    this.persistent = inner.persistent;
    this.ns = cache.namespace<K>(namespace, () => this.flush());
  }

  get(key: K): V | null {
    const id = this.idOf(key);
    const e = this.ns.get(id);
    if (e) return e.value as V | null;
    const value = this.inner.get(key);
    this.ns.set(id, id, key, value ?? null, false);
    return value;
  }

  put(key: K, value: V | null): void {
    const id = this.idOf(key);
    this.ns.set(id, id, key, value ?? null, true);
  }

  /**
   * keyId(key), remembered for the last primitive key (objects may change in place): an
   * aggregation reads a key and then writes it, and the same string spares the Maps a new hash.
   */
  private idOf(key: K): string {
    if (key === this.lastKey && (typeof key === 'string' || typeof key === 'number')) return this.lastId;
    this.lastKey = key;
    this.lastId = keyId(key);
    return this.lastId;
  }

  delete(key: K): V | null {
    const old = this.get(key);
    this.put(key, null);
    return old;
  }

  *all(): IterableIterator<[K, V]> {
    // The store's entries as the cache has them, then the keys only the cache has.
    const seen = new Set<string>();
    for (const [key, value] of this.inner.all()) {
      const id = keyId(key);
      const e = this.ns.peek(id);
      if (!e) {
        yield [key, value];
        continue;
      }
      seen.add(id);
      if (e.value !== null) yield [key, e.value as V];
    }
    for (const e of [...this.ns.values()]) {
      if (!seen.has(e.id) && e.value !== null) yield [e.address, e.value as V];
    }
  }

  range(from: K | null, to: K | null): IterableIterator<[K, V]> {
    return this.reads.range(from, to);
  }

  reverseRange(from: K | null, to: K | null): IterableIterator<[K, V]> {
    return this.reads.reverseRange(from, to);
  }

  reverseAll(): IterableIterator<[K, V]> {
    return this.reads.reverseAll();
  }

  prefixScan<P>(prefix: P, prefixSerde: Serde<P>): IterableIterator<[K, V]> {
    return this.reads.prefixScan(prefix, prefixSerde);
  }

  /** The store's entries in the range with the cache's writes over them, in key-byte order. */
  scan(range: ByteRange): [K, V][] {
    const serde = requireKeySerde(this.name, this.keySerde);
    const merged = new Map<string, { bytes: Buffer; entry: [K, V] | null }>();
    for (const [key, value] of this.inner.scan(range)) {
      merged.set(keyId(key), { bytes: serde.serialize(key), entry: [key, value] });
    }
    for (const e of this.ns.values()) {
      const stored = merged.get(e.id);
      if (stored) {
        stored.entry = e.value === null ? null : [e.address, e.value as V];
        continue;
      }
      if (e.value === null) continue;
      const bytes = serde.serialize(e.address);
      if (inByteRange(bytes, range)) merged.set(e.id, { bytes, entry: [e.address, e.value as V] });
    }
    return [...merged.values()]
      .filter((m): m is { bytes: Buffer; entry: [K, V] } => m.entry !== null)
      .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
      .map((m) => m.entry);
  }

  size(): number {
    if (this.ns.dirtyCount === 0) return this.inner.size();
    let n = 0;
    for (const _ of this.all()) n++;
    return n;
  }

  onFlush(listener: () => void): void {
    this.listeners.push(listener);
  }

  hasDirty(): boolean {
    return this.ns.dirtyCount > 0;
  }

  flush(): void {
    const dirty = this.ns.takeDirty();
    if (dirty.length > 0) {
      const entries = dirty.map((e) => [e.address, e.value as V | null] as const);
      const batch = this.inner as Partial<KeyValueBatch<K, V>>;
      if (batch.putAll) batch.putAll(entries);
      else for (const [k, v] of entries) this.inner.put(k, v);
    }
    this.inner.flush();
    for (const l of this.listeners) l();
  }

  /** Drops the cache (unflushed writes too); the task closes the store itself. */
  close(): void {
    this.ns.close();
  }
}
