/** In-memory stores: a Map per store, keys indexed by keyId(). */
import BTree from 'sorted-btree';
import type { Serde, Window } from '../serdes';
import { keyId } from './key-id';
import { KeyRangeReads, requireKeySerde, type ByteRange } from './key-range';
import type { ChangeListener, KeyValueStore, SessionStore, WindowEntry, WindowStore } from './stores';

export class InMemoryKeyValueStore<K, V> implements KeyValueStore<K, V> {
  readonly kind = 'keyValue' as const;
  readonly persistent = false;
  private readonly map = new Map<string, [K, V]>();
  /**
   * Key bytes → key id, in byte order, for range scans. Built by the first scan and kept up to
   * date from then on: a store nobody scans pays nothing for it on its writes.
   */
  private index: BTree<Buffer, string> | undefined;
  private readonly reads: KeyRangeReads<K, V>;

  /** `keySerde` orders the keys for range scans (stores without one cannot be scanned). */
  constructor(
    readonly name: string,
    private readonly onChange?: ChangeListener,
    private readonly keySerde?: Serde<K>,
  ) {
    this.reads = new KeyRangeReads(name, keySerde, (range) => this.scan(range));
  }

  get(key: K): V | null {
    const e = this.map.get(keyId(key));
    return e === undefined ? null : e[1];
  }

  put(key: K, value: V | null): void {
    const id = keyId(key);
    if (value === null || value === undefined) {
      if (this.map.delete(id) && this.index) this.index.delete(this.keySerde!.serialize(key));
    } else {
      if (this.index && !this.map.has(id)) this.index.set(this.keySerde!.serialize(key), id);
      this.map.set(id, [key, value]);
    }
    this.onChange?.({ store: this.name, key, value: value ?? null });
  }

  delete(key: K): V | null {
    const old = this.get(key);
    this.put(key, null);
    return old;
  }

  *all(): IterableIterator<[K, V]> {
    for (const e of this.map.values()) yield [e[0], e[1]];
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

  scan(range: ByteRange): [K, V][] {
    const index = (this.index ??= this.buildIndex(requireKeySerde(this.name, this.keySerde)));
    const out: [K, V][] = [];
    for (const [bytes, id] of index.entries(range.from ?? undefined)) {
      if (range.until !== null && Buffer.compare(bytes, range.until) >= 0) break;
      const e = this.map.get(id)!;
      out.push([e[0], e[1]]);
    }
    return out;
  }

  size(): number {
    return this.map.size;
  }
  flush(): void {}
  close(): void {}

  private buildIndex(serde: Serde<K>): BTree<Buffer, string> {
    const index = new BTree<Buffer, string>(undefined, Buffer.compare);
    for (const [id, [key]] of this.map) index.set(serde.serialize(key), id);
    return index;
  }
}

export class InMemoryWindowStore<K, V> implements WindowStore<K, V> {
  readonly kind = 'window' as const;
  readonly persistent = false;
  /**
   * keyId → the key and its windows' values by start. Entries (with their window objects) are
   * built only when a range or all() is read: a store keeps every window for its retention (a day
   * by default), and two objects fewer per window is that much less for the collector to trace.
   */
  private readonly map = new Map<string, { key: K; byStart: Map<number, V> }>();
  /** No entry starts before this: expire() below it is a no-op without a scan. */
  private earliestStart = Infinity;
  /** The last primitive key and its id: an aggregation fetches, then puts, the same key. */
  private lastKey: unknown = undefined;
  private lastId = '';

  constructor(
    readonly name: string,
    readonly windowSizeMs: number,
    readonly retentionMs: number,
    private readonly onChange?: ChangeListener,
  ) {}

  fetch(key: K, windowStart: number): V | null {
    return this.map.get(this.idOf(key))?.byStart.get(windowStart) ?? null;
  }

  fetchRange(key: K, fromStart: number, toStart: number): WindowEntry<K, V>[] {
    const found = this.map.get(this.idOf(key));
    if (!found) return [];
    const out: WindowEntry<K, V>[] = [];
    for (const [start, value] of found.byStart) {
      if (start >= fromStart && start <= toStart) out.push(this.entry(found.key, start, value));
    }
    return out.sort((a, b) => a.window.start - b.window.start);
  }

  all(): WindowEntry<K, V>[] {
    const out: WindowEntry<K, V>[] = [];
    for (const { key, byStart } of this.map.values()) {
      for (const [start, value] of byStart) out.push(this.entry(key, start, value));
    }
    return out.sort((a, b) => a.window.start - b.window.start);
  }

  put(key: K, windowStart: number, value: V | null): void {
    const id = this.idOf(key);
    const found = this.map.get(id);
    if (value === null || value === undefined) {
      found?.byStart.delete(windowStart);
      if (found && found.byStart.size === 0) this.map.delete(id);
    } else {
      if (found) {
        found.key = key;
        found.byStart.set(windowStart, value);
      } else {
        this.map.set(id, { key, byStart: new Map([[windowStart, value]]) });
      }
      if (windowStart < this.earliestStart) this.earliestStart = windowStart;
    }
    const window: Window = { start: windowStart, end: windowStart + this.windowSizeMs };
    this.onChange?.({ store: this.name, key, window, value: value ?? null });
  }

  /** keyId(key), remembered for the last key when it is a primitive (objects may change in place). */
  private idOf(key: K): string {
    if (key === this.lastKey && (typeof key === 'string' || typeof key === 'number')) return this.lastId;
    const id = keyId(key);
    this.lastKey = key;
    this.lastId = id;
    return id;
  }

  private entry(key: K, start: number, value: V): WindowEntry<K, V> {
    return { key, window: { start, end: start + this.windowSizeMs }, value };
  }

  expire(minStart: number): void {
    if (minStart <= this.earliestStart) return;
    let earliest = Infinity;
    for (const [id, { byStart }] of this.map) {
      for (const start of byStart.keys()) {
        if (start < minStart) byStart.delete(start);
        else earliest = Math.min(earliest, start);
      }
      if (byStart.size === 0) this.map.delete(id);
    }
    this.earliestStart = earliest;
  }

  size(): number {
    let n = 0;
    for (const { byStart } of this.map.values()) n += byStart.size;
    return n;
  }
  flush(): void {}
  close(): void {}
}

export class InMemorySessionStore<K, V> implements SessionStore<K, V> {
  readonly kind = 'session' as const;
  readonly persistent = false;
  private readonly map = new Map<string, WindowEntry<K, V>[]>();
  /** No session ends before this: expire() below it is a no-op without a scan. */
  private earliestEnd = Infinity;

  constructor(
    readonly name: string,
    private readonly onChange?: ChangeListener,
  ) {}

  findSessions(key: K, earliestEnd: number, latestStart: number): WindowEntry<K, V>[] {
    return (this.map.get(keyId(key)) ?? []).filter(
      (e) => e.window.end >= earliestEnd && e.window.start <= latestStart,
    );
  }

  fetch(key: K): WindowEntry<K, V>[] {
    return [...(this.map.get(keyId(key)) ?? [])];
  }

  all(): WindowEntry<K, V>[] {
    const out: WindowEntry<K, V>[] = [];
    for (const list of this.map.values()) out.push(...list);
    return out.sort((a, b) => a.window.start - b.window.start);
  }

  put(key: K, window: Window, value: V | null): void {
    if (value === null || value === undefined) return this.remove(key, window);
    const id = keyId(key);
    const list = (this.map.get(id) ?? []).filter(
      (e) => e.window.start !== window.start || e.window.end !== window.end,
    );
    list.push({ key, window: { ...window }, value });
    list.sort((a, b) => a.window.start - b.window.start);
    this.map.set(id, list);
    this.earliestEnd = Math.min(this.earliestEnd, window.end);
    this.onChange?.({ store: this.name, key, window, value });
  }

  remove(key: K, window: Window): void {
    const id = keyId(key);
    const list = (this.map.get(id) ?? []).filter(
      (e) => e.window.start !== window.start || e.window.end !== window.end,
    );
    if (list.length === 0) this.map.delete(id);
    else this.map.set(id, list);
    this.onChange?.({ store: this.name, key, window, value: null });
  }

  expire(minEnd: number): void {
    if (minEnd <= this.earliestEnd) return;
    let earliest = Infinity;
    for (const [id, list] of this.map) {
      const kept = list.filter((e) => e.window.end >= minEnd);
      for (const e of kept) earliest = Math.min(earliest, e.window.end);
      if (kept.length === 0) this.map.delete(id);
      else this.map.set(id, kept);
    }
    this.earliestEnd = earliest;
  }

  size(): number {
    let n = 0;
    for (const list of this.map.values()) n += list.length;
    return n;
  }
  flush(): void {}
  close(): void {}
}
