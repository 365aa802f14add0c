/**
 * A window store behind the record cache: as caching-key-value.ts, one cache entry per
 * (key, window start). Range reads merge the store's windows with the key's cached ones (the
 * cache indexes entries by key), so a window written but not yet flushed is read back. Expiry
 * drops cached windows past retention without flushing them: the store would drop them too.
 */
import type { Window } from '../serdes';
import type { CachingStore } from './caching-key-value';
import { keyId } from './key-id';
import type { CacheNamespace, RecordCache } from './record-cache';
import type { WindowBatch, WindowEntry, WindowPut, WindowStore } from './stores';

interface Address<K> {
  key: K;
  start: number;
}

export class CachingWindowStore<K, V> implements WindowStore<K, V>, CachingStore {
  readonly kind = 'window' as const;
  readonly cached = true as const;
  readonly name: string;
  readonly persistent: boolean;
  readonly windowSizeMs: number;
  readonly retentionMs: number;
  private readonly ns: CacheNamespace<Address<K>>;
  private readonly listeners: (() => void)[] = [];
  /** No cached window starts before this (a lower bound), so expire() mostly returns at once. */
  private earliestStart = Infinity;
  /** The last key's entry id and group (idOf). */
  private lastKey: unknown = undefined;
  private lastStart = NaN;
  private lastGroup = '';
  private lastId = '';

  constructor(
    readonly inner: WindowStore<K, V>,
    cache: RecordCache,
    namespace: string,
  ) {
    this.name = inner.name;
    this.persistent = inner.persistent;
    this.windowSizeMs = inner.windowSizeMs;
    this.retentionMs = inner.retentionMs;
    this.ns = cache.namespace<Address<K>>(namespace, () => this.flush());
  }

  /**
   * From the cache, else from the store without keeping the answer (as Kafka's caching window
   * store): an aggregation reads a window once and then writes it, and the write is what the
   * cache holds; keeping the read too was a cache entry's bookkeeping per record for no hit.
   */
  fetch(key: K, windowStart: number): V | null {
    const e = this.ns.get(this.idOf(key, windowStart));
    if (e) return e.value as V | null;
    return this.inner.fetch(key, windowStart);
  }

  fetchRange(key: K, fromStart: number, toStart: number): WindowEntry<K, V>[] {
    if (fromStart > toStart) return [];
    const group = keyId(key);
    const byStart = new Map<number, WindowEntry<K, V> | null>();
    for (const e of this.inner.fetchRange(key, fromStart, toStart)) byStart.set(e.window.start, e);
    for (const c of this.ns.group(group)) {
      const start = c.address.start;
      if (start < fromStart || start > toStart) continue;
      byStart.set(start, c.value === null ? null : this.entry(key, start, c.value as V));
    }
    return [...byStart.values()]
      .filter((e): e is WindowEntry<K, V> => e !== null)
      .sort((a, b) => a.window.start - b.window.start);
  }

  all(): WindowEntry<K, V>[] {
    const out: WindowEntry<K, V>[] = [];
    const seen = new Set<string>();
    for (const e of this.inner.all()) {
      const id = keyId(e.key) + '@' + e.window.start;
      const c = this.ns.peek(id);
      if (!c) out.push(e);
      else {
        seen.add(id);
        if (c.value !== null) out.push(this.entry(e.key, e.window.start, c.value as V));
      }
    }
    for (const c of this.ns.values()) {
      if (!seen.has(c.id) && c.value !== null)
        out.push(this.entry(c.address.key, c.address.start, c.value as V));
    }
    // Stable: the store's order within a start.
    return out.sort((a, b) => a.window.start - b.window.start);
  }

  put(key: K, windowStart: number, value: V | null): void {
    const id = this.idOf(key, windowStart);
    this.remember(id, this.lastGroup, key, windowStart, value ?? null, true);
  }

  /**
   * The entry id of (key, window start), and in `lastGroup` its group: remembered for the last
   * primitive key (objects may change in place), since an aggregation reads and then writes the
   * same window. The same string again also spares the Maps hashing a new one.
   */
  private idOf(key: K, windowStart: number): string {
    if (
      key === this.lastKey &&
      windowStart === this.lastStart &&
      (typeof key === 'string' || typeof key === 'number')
    ) {
      return this.lastId;
    }
    this.lastKey = key;
    this.lastStart = windowStart;
    this.lastGroup = keyId(key);
    this.lastId = this.lastGroup + '@' + windowStart;
    return this.lastId;
  }

  expire(minStart: number): void {
    if (minStart > this.earliestStart) {
      this.ns.removeWhere((e) => e.address.start < minStart);
      this.earliestStart = minStart;
    }
    this.inner.expire(minStart);
  }

  size(): number {
    return this.ns.dirtyCount === 0 ? this.inner.size() : this.all().length;
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
      const entries: WindowPut<K, V>[] = dirty.map((e) => ({
        key: e.address.key,
        windowStart: e.address.start,
        value: e.value as V | null,
      }));
      const batch = this.inner as Partial<WindowBatch<K, V>>;
      if (batch.putAll) batch.putAll(entries);
      else for (const p of entries) this.inner.put(p.key, p.windowStart, p.value);
    }
    this.inner.flush();
    for (const l of this.listeners) l();
  }

  /** Drops the cache (unflushed writes too); the task closes the store itself. */
  close(): void {
    this.ns.close();
  }

  private remember(id: string, group: string, key: K, start: number, value: V | null, dirty: boolean): void {
    if (start < this.earliestStart) this.earliestStart = start;
    this.ns.set(id, group, { key, start }, value, dirty);
  }

  private entry(key: K, start: number, value: V): WindowEntry<K, V> {
    const window: Window = { start, end: start + this.windowSizeMs };
    return { key, window, value };
  }
}
