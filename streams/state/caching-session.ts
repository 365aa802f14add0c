/**
 * A session store behind the record cache: as caching-key-value.ts, one cache entry per
 * (key, session window); a removed session is a cached absent value until the flush removes it
 * from the store. Session lookups merge the store's sessions of the key with its cached ones.
 */
import type { Window } from '../serdes';
import type { CachingStore } from './caching-key-value';
import { keyId } from './key-id';
import type { CacheNamespace, RecordCache } from './record-cache';
import type { SessionBatch, SessionPut, SessionStore, WindowEntry } from './stores';

interface Address<K> {
  key: K;
  window: Window;
}

export class CachingSessionStore<K, V> implements SessionStore<K, V>, CachingStore {
  readonly kind = 'session' as const;
  readonly cached = true as const;
  readonly name: string;
  readonly persistent: boolean;
  private readonly ns: CacheNamespace<Address<K>>;
  private readonly listeners: (() => void)[] = [];
  private earliestEnd = Infinity;

  constructor(
    readonly inner: SessionStore<K, V>,
    cache: RecordCache,
    namespace: string,
  ) {
    this.name = inner.name;
    this.persistent = inner.persistent;
    this.ns = cache.namespace<Address<K>>(namespace, () => this.flush());
  }

  findSessions(key: K, earliestEnd: number, latestStart: number): WindowEntry<K, V>[] {
    return this.merged(key, this.inner.findSessions(key, earliestEnd, latestStart), (w) => {
      return w.end >= earliestEnd && w.start <= latestStart;
    });
  }

  fetch(key: K): WindowEntry<K, V>[] {
    return this.merged(key, this.inner.fetch(key), () => true);
  }

  all(): WindowEntry<K, V>[] {
    const out: WindowEntry<K, V>[] = [];
    const seen = new Set<string>();
    for (const e of this.inner.all()) {
      const id = idOf(keyId(e.key), e.window);
      const c = this.ns.peek(id);
      if (!c) out.push(e);
      else {
        seen.add(id);
        if (c.value !== null) out.push({ key: e.key, window: e.window, value: c.value as V });
      }
    }
    for (const c of this.ns.values()) {
      if (!seen.has(c.id) && c.value !== null) out.push({ ...c.address, value: c.value as V });
    }
    return out.sort((a, b) => a.window.start - b.window.start);
  }

  put(key: K, window: Window, value: V | null): void {
    const group = keyId(key);
    if (window.end < this.earliestEnd) this.earliestEnd = window.end;
    this.ns.set(idOf(group, window), group, { key, window: { ...window } }, value ?? null, true);
  }

  remove(key: K, window: Window): void {
    this.put(key, window, null);
  }

  expire(minEnd: number): void {
    if (minEnd > this.earliestEnd) {
      this.ns.removeWhere((e) => e.address.window.end < minEnd);
      this.earliestEnd = minEnd;
    }
    this.inner.expire(minEnd);
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
      const entries: SessionPut<K, V>[] = dirty.map((e) => ({
        key: e.address.key,
        window: e.address.window,
        value: e.value as V | null,
      }));
      const batch = this.inner as Partial<SessionBatch<K, V>>;
      if (batch.putAll) batch.putAll(entries);
      else {
        for (const p of entries) {
          if (p.value === null) this.inner.remove(p.key, p.window);
          else this.inner.put(p.key, p.window, p.value);
        }
      }
    }
    this.inner.flush();
    for (const l of this.listeners) l();
  }

  /** Drops the cache (unflushed writes too); the task closes the store itself. */
  close(): void {
    this.ns.close();
  }

  private merged(key: K, stored: WindowEntry<K, V>[], wanted: (w: Window) => boolean): WindowEntry<K, V>[] {
    const group = keyId(key);
    const byId = new Map<string, WindowEntry<K, V> | null>();
    for (const e of stored) byId.set(idOf(group, e.window), e);
    for (const c of this.ns.group(group)) {
      if (!wanted(c.address.window)) continue;
      byId.set(c.id, c.value === null ? null : { key, window: c.address.window, value: c.value as V });
    }
    return [...byId.values()]
      .filter((e): e is WindowEntry<K, V> => e !== null)
      .sort((a, b) => a.window.start - b.window.start);
  }
}

function idOf(group: string, w: Window): string {
  return group + '@' + w.start + ':' + w.end;
}
