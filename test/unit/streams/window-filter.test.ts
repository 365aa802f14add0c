/**
 * The LMDB window store's Bloom filters: a fetch of a window not there is answered without an
 * LMDB read, and never is a window that is there missed — after writes, deletes, a reopen (segments
 * from the files have no filter), restores (sync and queued), a clear, and an aborted restore.
 */
import * as path from 'node:path';
import { Serdes } from '../../../streams';
import { ScalableBloomFilter } from '../../../streams/state/bloom';
import { PersistentWindowStore } from '../../../streams/state/persistent-window';
import { storeFolder } from './store-fixtures';

const folder = storeFolder('tide-window-filter-');
const DAY = 86_400_000;

function open(name = 'w'): PersistentWindowStore<string, number> {
  return folder.track(
    new PersistentWindowStore(name, path.join(folder.dir, name), 10_000, DAY, Serdes.string, Serdes.number),
  );
}

/** Counts the LMDB reads of `store`'s segments (their `get`, patched on each database as it is used). */
function countReads(store: PersistentWindowStore<string, number>): { reads: number } {
  const counter = { reads: 0 };
  type Db = { get(k: Buffer): unknown; counted?: boolean };
  const segments = (store as unknown as { segments: { at(t: number): Db | undefined } }).segments;
  const at = segments.at.bind(segments);
  segments.at = (t) => {
    const db = at(t);
    if (db && !db.counted) {
      const get = db.get.bind(db);
      db.get = (k: Buffer) => {
        counter.reads++;
        return get(k);
      };
      db.counted = true;
    }
    return db;
  };
  return counter;
}

describe('ScalableBloomFilter', () => {
  it('never misses a key it was given, and rarely claims one it was not, as it grows', () => {
    const f = new ScalableBloomFilter();
    const key = (i: number) => Buffer.from(`user-${i}@${i % 97}`);
    for (let i = 0; i < 150_000; i++) f.add(key(i));
    for (let i = 0; i < 150_000; i++) if (!f.mightContain(key(i))) throw new Error(`missed key ${i}`);
    let claimed = 0;
    for (let i = 150_000; i < 200_000; i++) if (f.mightContain(key(i))) claimed++;
    expect(claimed / 50_000).toBeLessThan(0.05);
  });
});

describe('the LMDB window store with filters', () => {
  it('answers absent windows of segments it made without reading LMDB, and finds every present one', () => {
    const w = open();
    const reads = countReads(w);
    for (let i = 0; i < 1_000; i++) w.put(`k${i}`, 0, i);
    reads.reads = 0;
    for (let i = 0; i < 1_000; i++) expect(w.fetch(`k${i}`, 0)).toBe(i);
    expect(reads.reads).toBe(1_000);
    reads.reads = 0;
    let absent = 0;
    for (let i = 1_000; i < 2_000; i++) if (w.fetch(`k${i}`, 0) === null) absent++;
    expect(absent).toBe(1_000);
    expect(reads.reads).toBeLessThan(50); // the filter's false positives only
    w.put('k1', 0, null); // a delete: the filter still says maybe; the read finds nothing
    expect(w.fetch('k1', 0)).toBeNull();
  });

  it('reads segments opened from the files, which have no filter', async () => {
    const w = open();
    w.put('a', 0, 1);
    await w.flushed();
    folder.close(w);
    const again = open();
    const reads = countReads(again);
    expect(again.fetch('a', 0)).toBe(1);
    expect(again.fetch('b', 0)).toBeNull();
    expect(reads.reads).toBe(2);
    again.put('c', 0, 3); // into the segment from the files: still no filter there
    expect(again.fetch('c', 0)).toBe(3);
  });

  it('restored windows are found, from a batch and from queued writes', async () => {
    const batch = open('batch');
    batch.restoreBatch((apply) => {
      for (let i = 0; i < 100; i++) apply(Buffer.from(`r${i}`), 20_000, 30_000, Serdes.number.serialize(i));
    });
    for (let i = 0; i < 100; i++) expect(batch.fetch(`r${i}`, 20_000)).toBe(i);
    const queued = open('queued');
    await queued.restoreQueued((apply) => {
      for (let i = 0; i < 100; i++) apply(Buffer.from(`q${i}`), 20_000, 30_000, Serdes.number.serialize(i));
    });
    for (let i = 0; i < 100; i++) expect(queued.fetch(`q${i}`, 20_000)).toBe(i);
  });

  it('a clear and an aborted restore leave no filter that could hide a window', () => {
    const w = open();
    w.put('a', 0, 1);
    w.clear();
    expect(w.fetch('a', 0)).toBeNull();
    w.put('a', 0, 2);
    expect(w.fetch('a', 0)).toBe(2);
    expect(() =>
      w.restoreBatch((apply) => {
        apply(Buffer.from('b'), 0, 10_000, Serdes.number.serialize(5));
        throw new Error('the changelog read failed');
      }),
    ).toThrow(/changelog read failed/);
    expect(w.fetch('a', 0)).toBe(2);
    expect(w.fetch('b', 0)).toBeNull();
    w.put('b', 0, 6);
    expect(w.fetch('b', 0)).toBe(6);
  });
});
