/**
 * The record cache and the caching stores: reads see writes, the store and its change events see
 * only flushes (one batch, one event per dirty key, in the order of the last writes), deletes
 * travel as tombstones, and a full cache flushes its writing store before evicting a dirty entry.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Serdes } from '../../../streams';
import { CachingKeyValueStore } from '../../../streams/state/caching-key-value';
import { CachingSessionStore } from '../../../streams/state/caching-session';
import { CachingWindowStore } from '../../../streams/state/caching-window';
import {
  InMemoryKeyValueStore,
  InMemorySessionStore,
  InMemoryWindowStore,
} from '../../../streams/state/memory';
import { PersistentKeyValueStore } from '../../../streams/state/persistent';
import { PersistentSessionStore } from '../../../streams/state/persistent-session';
import { PersistentWindowStore } from '../../../streams/state/persistent-window';
import { RecordCache, estimateBytes } from '../../../streams/state/record-cache';
import type { StoreChange } from '../../../streams/state/stores';

function changes(): { list: StoreChange[]; fn: (c: StoreChange) => void } {
  const list: StoreChange[] = [];
  return { list, fn: (c) => list.push(c) };
}

describe('CachingKeyValueStore', () => {
  it('reads its own writes; the store and the changelog see one write per key at flush, in last-write order', () => {
    const log = changes();
    const inner = new InMemoryKeyValueStore<string, number>('kv', log.fn);
    const kv = new CachingKeyValueStore(inner, new RecordCache(), 't/kv');
    kv.put('a', 1);
    kv.put('b', 1);
    kv.put('a', 2);
    kv.put('c', 1);
    kv.put('b', 2);
    expect(kv.get('a')).toBe(2);
    expect(inner.get('a')).toBeNull();
    expect(log.list).toEqual([]);
    expect(kv.hasDirty()).toBe(true);
    kv.flush();
    expect(log.list.map((c) => [c.key, c.value])).toEqual([
      ['a', 2],
      ['c', 1],
      ['b', 2],
    ]);
    expect(inner.get('b')).toBe(2);
    expect(kv.hasDirty()).toBe(false);
    kv.flush();
    expect(log.list).toHaveLength(3); // nothing dirty: nothing written again
  });

  it('keeps deletes as tombstones until the flush deletes from the store', () => {
    const log = changes();
    const inner = new InMemoryKeyValueStore<string, number>('kv', log.fn);
    inner.put('gone', 7);
    log.list.length = 0;
    const kv = new CachingKeyValueStore(inner, new RecordCache(), 't/kv');
    expect(kv.delete('gone')).toBe(7);
    expect(kv.get('gone')).toBeNull();
    expect([...kv.all()]).toEqual([]);
    expect(kv.size()).toBe(0);
    expect(inner.get('gone')).toBe(7);
    kv.put('new', 1);
    kv.delete('new'); // written and deleted before a flush: still one tombstone to the store
    kv.flush();
    expect(log.list.map((c) => [c.key, c.value])).toEqual([
      ['gone', null],
      ['new', null],
    ]);
    expect(inner.get('gone')).toBeNull();
    expect(kv.get('gone')).toBeNull();
  });

  it('all() merges the store with the cache', () => {
    const inner = new InMemoryKeyValueStore<string, number>('kv');
    inner.put('a', 1);
    inner.put('b', 1);
    const kv = new CachingKeyValueStore(inner, new RecordCache(), 't/kv');
    kv.put('b', 5);
    kv.put('c', 3);
    kv.delete('a');
    expect(new Map(kv.all())).toEqual(
      new Map([
        ['b', 5],
        ['c', 3],
      ]),
    );
    expect(kv.size()).toBe(2);
  });

  it('a full cache flushes the writing store in one batch before evicting a dirty entry, and stays in budget', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-cache-'));
    try {
      const log = changes();
      const inner = new PersistentKeyValueStore('kv', dir, Serdes.string, Serdes.number, log.fn);
      const batches: number[] = [];
      const putAll = inner.putAll.bind(inner);
      inner.putAll = (entries) => {
        batches.push(entries.length);
        putAll(entries);
      };
      const cache = new RecordCache(20_000);
      const kv = new CachingKeyValueStore(inner, cache, 't/kv');
      let flushes = 0;
      kv.onFlush(() => flushes++);
      for (let i = 0; i < 1_000; i++) {
        kv.put(`hot${i % 5}`, i);
        kv.put(`cold${i}`, i);
      }
      expect(cache.bytes()).toBeLessThanOrEqual(20_000);
      expect(cache.stats.evictions).toBeGreaterThan(0);
      expect(batches.length).toBeGreaterThan(0);
      expect(flushes).toBe(batches.length);
      kv.flush();
      // Every key's last value is in the store, whatever was evicted when.
      for (let i = 0; i < 1_000; i++) expect(inner.get(`cold${i}`)).toBe(i);
      for (let i = 995; i < 1_000; i++) expect(inner.get(`hot${i % 5}`)).toBe(i);
      for (let i = 995; i < 1_000; i++) expect(kv.get(`hot${i % 5}`)).toBe(i);
      // Fewer changelog records than writes: the hot keys' writes between flushes were deduplicated.
      expect(log.list.length).toBeLessThan(2_000);
      expect(log.list.length).toBeGreaterThanOrEqual(1_005);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(log.list.length);
      kv.close();
      inner.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('evicts the least recently used entry: a recently read entry stays', () => {
    const inner = new InMemoryKeyValueStore<string, number>('kv');
    for (let i = 0; i < 50; i++) inner.put(`k${i}`, i);
    let reads = 0;
    const get = inner.get.bind(inner);
    inner.get = (k) => {
      reads++;
      return get(k);
    };
    const cache = new RecordCache(3_000);
    const kv = new CachingKeyValueStore(inner, cache, 't/kv');
    kv.get('hot');
    for (let i = 0; i < 50; i++) {
      kv.get(`k${i}`);
      kv.get('hot'); // touched after every read: never the eldest
    }
    const before = reads;
    expect(kv.get('hot')).toBeNull();
    expect(reads).toBe(before); // served from the cache (a cached absence)
    expect(kv.get('k0')).toBe(0);
    expect(reads).toBe(before + 1); // evicted long ago: read from the store again
  });

  it('close drops unflushed writes (an aborted or lost task) and frees the budget', () => {
    const inner = new InMemoryKeyValueStore<string, number>('kv');
    const cache = new RecordCache();
    const kv = new CachingKeyValueStore(inner, cache, 't/kv');
    kv.put('a', 1);
    expect(cache.bytes()).toBeGreaterThan(0);
    kv.close();
    expect(cache.bytes()).toBe(0);
    expect(inner.get('a')).toBeNull();
  });

  it('shares one budget between stores; evictions come from the store written to', () => {
    const cache = new RecordCache(4_000);
    const a = new CachingKeyValueStore(new InMemoryKeyValueStore<string, number>('a'), cache, 't/a');
    const bInner = new InMemoryKeyValueStore<string, number>('b');
    const b = new CachingKeyValueStore(bInner, cache, 't/b');
    b.put('kept', 1);
    for (let i = 0; i < 200; i++) a.put(`k${i}`, i);
    expect(bInner.get('kept')).toBeNull(); // b was neither evicted nor flushed by a's writes
    expect(cache.bytes()).toBeLessThanOrEqual(4_000);
  });
});

describe('CachingWindowStore', () => {
  it('merges cached and stored windows in fetch, fetchRange and all; flushes one batch of deduplicated windows', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-cache-'));
    try {
      const log = changes();
      const inner = new PersistentWindowStore('w', dir, 10, 1_000, Serdes.string, Serdes.number, log.fn);
      inner.put('a', 0, 1);
      inner.put('a', 10, 1);
      inner.put('a', 20, 1);
      log.list.length = 0;
      let batches = 0;
      const putAll = inner.putAll.bind(inner);
      inner.putAll = (entries) => {
        batches++;
        putAll(entries);
      };
      const ws = new CachingWindowStore(inner, new RecordCache(), 't/w');
      ws.put('a', 10, 5);
      ws.put('a', 30, 2);
      ws.put('a', 30, 3);
      ws.put('a', 20, null);
      ws.put('b', 0, 9);
      expect(ws.fetch('a', 10)).toBe(5);
      expect(ws.fetch('a', 20)).toBeNull();
      expect(ws.fetchRange('a', 0, 30).map((e) => [e.window.start, e.value])).toEqual([
        [0, 1],
        [10, 5],
        [30, 3],
      ]);
      expect(ws.fetchRange('a', 5, 25).map((e) => e.window.start)).toEqual([10]);
      expect(ws.all().map((e) => [e.key, e.window.start, e.value])).toEqual([
        ['a', 0, 1],
        ['b', 0, 9],
        ['a', 10, 5],
        ['a', 30, 3],
      ]);
      expect(log.list).toEqual([]);
      ws.flush();
      expect(batches).toBe(1);
      expect(log.list.map((c) => [c.key, c.window?.start, c.value])).toEqual([
        ['a', 10, 5],
        ['a', 30, 3],
        ['a', 20, null],
        ['b', 0, 9],
      ]);
      expect(inner.fetchRange('a', 0, 30).map((e) => [e.window.start, e.value])).toEqual([
        [0, 1],
        [10, 5],
        [30, 3],
      ]);
      ws.close();
      inner.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('expire drops cached windows past retention as the store does', () => {
    const inner = new InMemoryWindowStore<string, number>('w', 10, 100);
    const ws = new CachingWindowStore(inner, new RecordCache(), 't/w');
    ws.put('a', 0, 1);
    ws.put('a', 50, 2);
    ws.expire(40);
    expect(ws.fetch('a', 0)).toBeNull();
    expect(ws.all().map((e) => e.window.start)).toEqual([50]);
    ws.flush();
    expect(inner.all().map((e) => e.window.start)).toEqual([50]);
  });

  it("reads a miss from the store each time and keeps only writes (as Kafka's caching window store)", () => {
    const inner = new InMemoryWindowStore<string, number>('w', 10, 100);
    inner.put('a', 0, 1);
    let reads = 0;
    const fetch = inner.fetch.bind(inner);
    inner.fetch = (key, start) => {
      reads++;
      return fetch(key, start);
    };
    const cache = new RecordCache();
    const ws = new CachingWindowStore(inner, cache, 't/w');
    expect([ws.fetch('a', 0), ws.fetch('a', 0), ws.fetch('b', 0)]).toEqual([1, 1, null]);
    expect(reads).toBe(3);
    expect(cache.bytes()).toBe(0);
    ws.put('a', 0, 2);
    expect(ws.fetch('a', 0)).toBe(2);
    expect(reads).toBe(3); // the write is served from the cache
    expect(cache.bytes()).toBeGreaterThan(0);
  });
});

describe('CachingSessionStore', () => {
  it('finds cached and stored sessions, hides removed ones, and removes them from the store at flush', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-cache-'));
    try {
      const log = changes();
      const inner = new PersistentSessionStore('s', dir, Serdes.string, Serdes.number, log.fn);
      inner.put('a', { start: 0, end: 10 }, 2);
      log.list.length = 0;
      const ss = new CachingSessionStore(inner, new RecordCache(), 't/s');
      // A record at 15 merges [0,10] into [0,15].
      const found = ss.findSessions('a', 5, 25);
      expect(found.map((e) => e.window)).toEqual([{ start: 0, end: 10 }]);
      ss.remove('a', { start: 0, end: 10 });
      ss.put('a', { start: 0, end: 15 }, 3);
      ss.put('a', { start: 40, end: 40 }, 1);
      expect(ss.findSessions('a', 5, 25).map((e) => [e.window, e.value])).toEqual([
        [{ start: 0, end: 15 }, 3],
      ]);
      expect(ss.fetch('a').map((e) => e.window.start)).toEqual([0, 40]);
      expect(ss.all()).toHaveLength(2);
      ss.flush();
      expect(log.list.map((c) => [c.window, c.value])).toEqual([
        [{ start: 0, end: 10 }, null],
        [{ start: 0, end: 15 }, 3],
        [{ start: 40, end: 40 }, 1],
      ]);
      expect(inner.fetch('a').map((e) => [e.window, e.value])).toEqual([
        [{ start: 0, end: 15 }, 3],
        [{ start: 40, end: 40 }, 1],
      ]);
      ss.close();
      inner.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('works over the in-memory store (puts and removes one by one)', () => {
    const log = changes();
    const inner = new InMemorySessionStore<string, number>('s', log.fn);
    const ss = new CachingSessionStore(inner, new RecordCache(), 't/s');
    ss.put('a', { start: 0, end: 5 }, 1);
    ss.put('a', { start: 0, end: 5 }, 2);
    ss.remove('b', { start: 1, end: 2 });
    ss.flush();
    expect(log.list.map((c) => [c.key, c.value])).toEqual([
      ['a', 2],
      ['b', null],
    ]);
    expect(inner.fetch('a').map((e) => e.value)).toEqual([2]);
  });
});

describe('estimateBytes', () => {
  it('grows with the value', () => {
    expect(estimateBytes('x'.repeat(100), 3)).toBeGreaterThan(estimateBytes('x', 3));
    expect(estimateBytes({ value: 1, timestamp: 2 }, 3)).toBeGreaterThan(estimateBytes(1, 3));
    expect(estimateBytes([1, 2, 3], 3)).toBeGreaterThan(estimateBytes([], 3));
  });
});

describe('CacheNamespace', () => {
  it('keeps the LRU and last-write orders when an entry is read and then written (no second move)', () => {
    const ns = new RecordCache().namespace<string>('n', () => undefined);
    const order = () => [...ns.values()].map((e) => e.id);
    ns.set('a', 'a', 'a', 1, true);
    ns.get('a');
    ns.set('a', 'a', 'a', 2, true);
    ns.set('b', 'b', 'b', 1, true);
    ns.get('a');
    ns.set('a', 'a', 'a', 3, true);
    expect(order()).toEqual(['b', 'a']);
    ns.set('c', 'c', 'c', null, true);
    expect(ns.takeDirty().map((e) => [e.id, e.value])).toEqual([
      ['b', 1],
      ['a', 3],
      ['c', null],
    ]);
    // The absent c left with the flush; the entries left still move to the end when read.
    expect(order()).toEqual(['b', 'a']);
    ns.get('b');
    expect(order()).toEqual(['a', 'b']);
    ns.set('a', 'a', 'a', 4, true);
    ns.set('b', 'b', 'b', 2, true);
    expect(ns.takeDirty().map((e) => e.id)).toEqual(['a', 'b']);
    expect(order()).toEqual(['a', 'b']);
  });
});
