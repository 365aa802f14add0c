/**
 * The record cache (Kafka Streams' ThreadCache): one byte budget per application instance,
 * shared by the caching stores of all its tasks (caching-*.ts). Each store has a namespace:
 * its entries in least-recently-used order, the dirty ones (written since the last flush) in
 * order of their last write.
 *
 * Sizes are estimates of the JavaScript objects (values are kept deserialized, so reads and
 * writes cost no serde); the budget bounds memory roughly, not to the byte.
 *
 * When a write takes the cache over budget, the writing store's least recently used entries are
 * evicted; evicting a dirty entry flushes every dirty entry of that store first (one batch, as
 * Kafka does), so a store never loses a write it has not passed on.
 */

/** Kafka's statestore.cache.max.bytes default. */
export const DEFAULT_CACHE_MAX_BYTES = 10 * 1024 * 1024;
/** An eviction run ends at this share of the budget. */
const EVICT_TO = 0.9;

export interface CacheEntry<T> {
  /** The entry's identity in its namespace (key id, plus the window for windowed stores). */
  readonly id: string;
  /** Entries of one record key (windowed stores find a key's windows through it). */
  readonly group: string;
  /** The store's own address of the entry (key, window). */
  readonly address: T;
  /** null: absent (a delete, or a read that found nothing). */
  value: unknown;
  dirty: boolean;
  bytes: number;
}

export class RecordCache {
  private used = 0;
  private readonly namespaces = new Set<CacheNamespace<unknown>>();
  /** Entries evicted so far (for tests and metrics). */
  readonly stats = { evictions: 0 };

  constructor(readonly maxBytes: number = DEFAULT_CACHE_MAX_BYTES) {
    if (!Number.isFinite(maxBytes) || maxBytes < 0) {
      throw new RangeError(`cacheMaxBytes must be a number >= 0, got ${maxBytes}`);
    }
  }

  /** A namespace for one store; `flush` writes its dirty entries (the store's batch flush). */
  namespace<T>(name: string, flush: () => void): CacheNamespace<T> {
    const ns = new CacheNamespace<T>(name, this, flush);
    this.namespaces.add(ns as CacheNamespace<unknown>);
    return ns;
  }

  bytes(): number {
    return this.used;
  }

  /** @internal bookkeeping of the namespaces. */
  adjust(delta: number): void {
    this.used += delta;
  }

  /** @internal */
  drop(ns: CacheNamespace<unknown>): void {
    this.namespaces.delete(ns);
  }

  /**
   * @internal Over budget: evicts from the namespace written to until the cache is a tenth below
   * its budget, so evictions come in runs rather than on every write once it is full.
   */
  maybeEvict(ns: CacheNamespace<unknown>): void {
    if (this.used <= this.maxBytes) return;
    const target = this.maxBytes * EVICT_TO;
    this.stats.evictions += ns.evictOldest(() => this.used <= target);
  }
}

export class CacheNamespace<T> {
  /** Least recently used first. */
  private readonly entries = new Map<string, CacheEntry<T>>();
  /** Dirty entries, least recently written first: the flush order. */
  private readonly dirtyEntries = new Map<string, CacheEntry<T>>();
  private readonly groups = new Map<string, Set<CacheEntry<T>>>();
  /**
   * The last entry of `entries` and of `dirtyEntries`: an aggregation reads an entry and then
   * writes it, and the write need not move to the end again what the read just moved there
   * (each move is a delete and an insert in a large Map).
   */
  private newest: CacheEntry<T> | undefined;
  private newestDirty: CacheEntry<T> | undefined;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly cache: RecordCache,
    private readonly flusher: () => void,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get dirtyCount(): number {
    return this.dirtyEntries.size;
  }

  /** The entry, marked most recently used. */
  get(id: string): CacheEntry<T> | undefined {
    const e = this.entries.get(id);
    if (e) this.touch(e);
    return e;
  }

  /** Without touching the LRU order (scans: all(), fetchRange). */
  peek(id: string): CacheEntry<T> | undefined {
    return this.entries.get(id);
  }

  /** The cached entries of one record key (windowed stores). */
  group(group: string): Iterable<CacheEntry<T>> {
    return this.groups.get(group) ?? [];
  }

  values(): IterableIterator<CacheEntry<T>> {
    return this.entries.values();
  }

  /** A write (dirty) or a read's result (clean); may evict, and so flush, before returning. */
  set(id: string, group: string, address: T, value: unknown, dirty: boolean): void {
    if (this.closed) return;
    const bytes = entryBytes(id, value);
    const old = this.entries.get(id);
    if (old) {
      this.touch(old);
      this.cache.adjust(bytes - old.bytes);
      old.value = value;
      old.bytes = bytes;
      // A clean read never makes a dirty entry clean: its write is still to be flushed.
      if (dirty) {
        old.dirty = true;
        if (old !== this.newestDirty) {
          this.dirtyEntries.delete(id);
          this.dirtyEntries.set(id, old);
          this.newestDirty = old;
        }
      }
    } else {
      const e: CacheEntry<T> = { id, group, address, value, dirty, bytes };
      this.entries.set(id, e);
      this.newest = e;
      let g = this.groups.get(group);
      if (!g) this.groups.set(group, (g = new Set()));
      g.add(e);
      this.cache.adjust(bytes);
      if (dirty) {
        this.dirtyEntries.set(id, e);
        this.newestDirty = e;
      }
    }
    this.cache.maybeEvict(this as CacheNamespace<unknown>);
  }

  /**
   * Takes the dirty entries (in flush order) and marks them clean; absent ones leave the cache,
   * as the store they go to will answer for them.
   */
  takeDirty(): CacheEntry<T>[] {
    const out = [...this.dirtyEntries.values()];
    this.dirtyEntries.clear();
    this.newestDirty = undefined;
    for (const e of out) {
      e.dirty = false;
      if (e.value === null) this.remove(e);
    }
    return out;
  }

  /** Drops entries matching `doomed` without flushing them (windows past retention). */
  removeWhere(doomed: (e: CacheEntry<T>) => boolean): void {
    for (const e of [...this.entries.values()]) {
      if (!doomed(e)) continue;
      this.dirtyEntries.delete(e.id);
      if (e === this.newestDirty) this.newestDirty = undefined;
      this.remove(e);
    }
  }

  /**
   * @internal Least recently used entries leave until `enough`; reaching a dirty one flushes the
   * namespace first. Returns how many left.
   */
  evictOldest(enough: () => boolean): number {
    let n = 0;
    // One iterator for the run: a Map iterator skips what a flush removes meanwhile.
    for (const e of this.entries.values()) {
      if (enough()) break;
      if (e.dirty) this.flusher();
      // The flush may have removed it already (an absent value).
      if (this.entries.get(e.id) === e) this.remove(e);
      n++;
    }
    return n;
  }

  /** Forgets every entry, dirty or not (the task closes; its writes were flushed or are void). */
  close(): void {
    for (const e of this.entries.values()) this.cache.adjust(-e.bytes);
    this.entries.clear();
    this.dirtyEntries.clear();
    this.groups.clear();
    this.newest = this.newestDirty = undefined;
    this.closed = true;
    this.cache.drop(this as CacheNamespace<unknown>);
  }

  /** Makes `e` the most recently used entry. */
  private touch(e: CacheEntry<T>): void {
    if (e === this.newest) return;
    this.entries.delete(e.id);
    this.entries.set(e.id, e);
    this.newest = e;
  }

  private remove(e: CacheEntry<T>): void {
    if (e === this.newest) this.newest = undefined;
    this.entries.delete(e.id);
    this.cache.adjust(-e.bytes);
    const g = this.groups.get(e.group);
    if (g) {
      g.delete(e);
      if (g.size === 0) this.groups.delete(e.group);
    }
  }
}

/** Map and object overhead of an entry, on top of its id and value. */
const ENTRY_OVERHEAD = 96;

function entryBytes(id: string, value: unknown): number {
  return ENTRY_OVERHEAD + 2 * id.length + estimateBytes(value, 3);
}

/** A rough size of a value: strings two bytes a character, numbers eight, objects their fields. */
export function estimateBytes(v: unknown, depth: number): number {
  switch (typeof v) {
    case 'string':
      return 16 + 2 * v.length;
    case 'number':
    case 'boolean':
    case 'undefined':
      return 8;
    case 'bigint':
      return 16;
    case 'object': {
      if (v === null) return 8;
      if (Buffer.isBuffer(v)) return 32 + v.length;
      if (depth <= 0) return 64;
      let n = 32;
      if (Array.isArray(v)) {
        for (const x of v) n += 8 + estimateBytes(x, depth - 1);
        return n;
      }
      for (const k in v) n += 16 + 2 * k.length + estimateBytes((v as Record<string, unknown>)[k], depth - 1);
      return n;
    }
    default:
      return 16;
  }
}
