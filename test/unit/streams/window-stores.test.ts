/**
 * The window and session store contract, run against the in-memory stores and the LMDB ones
 * alike (the same cases, the same expected results), plus what only the LMDB stores do: keep
 * their windows across a reopen and clear.
 */
import * as path from 'node:path';
import { open as openLmdb } from 'lmdb';
import { Serdes } from '../../../streams';
import { InMemorySessionStore, InMemoryWindowStore } from '../../../streams/state/memory';
import { PersistentSessionStore } from '../../../streams/state/persistent-session';
import { PersistentWindowStore } from '../../../streams/state/persistent-window';
import { encodeTime, keyPart } from '../../../streams/state/lmdb-keys';
import { coarseExpiry } from '../../../streams/processors/common';
import { seededRandom } from '../../harness/random';
import type { ChangeListener, RawApply, SessionStore, WindowStore } from '../../../streams/state/stores';
import { storeFolder } from './store-fixtures';

const folder = storeFolder('tide-window-stores-');
const { track } = folder;

type WindowFactory = (sizeMs: number, onChange?: ChangeListener) => WindowStore<string, number>;
type SessionFactory = (onChange?: ChangeListener) => SessionStore<string, number>;

const windowStores: [string, WindowFactory][] = [
  ['in memory', (sizeMs, onChange) => new InMemoryWindowStore('w', sizeMs, 100, onChange)],
  [
    'LMDB',
    (sizeMs, onChange) =>
      track(new PersistentWindowStore('w', folder.dir, sizeMs, 100, Serdes.string, Serdes.number, onChange)),
  ],
];

const sessionStores: [string, SessionFactory][] = [
  ['in memory', (onChange) => new InMemorySessionStore('s', onChange)],
  [
    'LMDB',
    (onChange) => track(new PersistentSessionStore('s', folder.dir, Serdes.string, Serdes.number, onChange)),
  ],
];

describe.each(windowStores)('window store (%s)', (_name, create) => {
  it('expire drops windows starting before the bound, also ones put after an earlier expiry', () => {
    const s = create(10);
    s.put('a', 0, 1);
    s.put('a', 10, 2);
    s.put('b', 20, 3);
    s.expire(0); // nothing starts before 0
    expect(s.size()).toBe(3);
    s.expire(15);
    expect(s.all().map((e) => e.window.start)).toEqual([20]);
    s.put('c', 5, 4); // earlier than everything kept: the next expiry must see it
    s.expire(10);
    expect(s.all().map((e) => e.window.start)).toEqual([20]);
    s.expire(21);
    expect(s.size()).toBe(0);
  });

  it('fetch and fetchRange see one key only, by start, bounds included; null deletes', () => {
    const s = create(10);
    for (const start of [30, 0, 20, 10]) s.put('a', start, start + 1);
    s.put('ab', 10, 99); // a key whose bytes start with another key's
    s.put('', 10, 98);
    expect(s.fetch('a', 20)).toBe(21);
    expect(s.fetch('a', 25)).toBeNull();
    expect(s.fetch('b', 20)).toBeNull();
    expect(s.fetchRange('a', 10, 30).map((e) => [e.window, e.value])).toEqual([
      [{ start: 10, end: 20 }, 11],
      [{ start: 20, end: 30 }, 21],
      [{ start: 30, end: 40 }, 31],
    ]);
    expect(s.fetchRange('a', 11, 19)).toEqual([]);
    expect(s.fetchRange('a', 30, 10)).toEqual([]);
    expect(s.fetchRange('ab', -Infinity, Infinity).map((e) => [e.key, e.value])).toEqual([['ab', 99]]);
    expect(s.fetchRange('', 0, 100).map((e) => e.value)).toEqual([98]);
    s.put('a', 20, 22); // overwrite
    s.put('a', 0, null); // delete
    s.put('a', 500, null); // delete of nothing
    expect(s.fetchRange('a', -Infinity, Infinity).map((e) => e.value)).toEqual([11, 22, 31]);
    expect(s.size()).toBe(5);
  });

  it('all() lists every window by start; negative starts sort first', () => {
    const s = create(5);
    s.put('x', 10, 1);
    s.put('y', -20, 2);
    s.put('z', 0, 3);
    expect(s.all().map((e) => [e.key, e.window.start, e.window.end, e.value])).toEqual([
      ['y', -20, -15, 2],
      ['z', 0, 5, 3],
      ['x', 10, 15, 1],
    ]);
    s.expire(-10);
    expect(s.all().map((e) => e.key)).toEqual(['z', 'x']);
  });

  it('reports every put and delete to the change listener, expiry none', () => {
    const changes: unknown[] = [];
    // The LMDB store also hands over the serdes' bytes (checked in changelog-bytes below).
    const s = create(10, ({ keyBytes: _k, valueBytes: _v, ...c }) => changes.push(c));
    s.put('a', 0, 1);
    s.put('a', 0, null);
    s.put('b', 10, 2);
    s.expire(100);
    expect(changes).toEqual([
      { store: 'w', key: 'a', window: { start: 0, end: 10 }, value: 1 },
      { store: 'w', key: 'a', window: { start: 0, end: 10 }, value: null },
      { store: 'w', key: 'b', window: { start: 10, end: 20 }, value: 2 },
    ]);
  });
});

describe.each(sessionStores)('session store (%s)', (_name, create) => {
  it('session stores expire by session end', () => {
    const s = create();
    s.put('a', { start: 0, end: 5 }, 1);
    s.put('a', { start: 10, end: 12 }, 2);
    s.expire(6);
    expect(s.fetch('a').map((e) => e.window)).toEqual([{ start: 10, end: 12 }]);
    s.put('b', { start: 1, end: 2 }, 3);
    s.expire(3);
    expect(s.fetch('b')).toEqual([]);
  });

  it('findSessions: end >= earliestEnd and start <= latestStart, by start, one key only', () => {
    const s = create();
    s.put('a', { start: 0, end: 10 }, 1);
    s.put('a', { start: 20, end: 25 }, 2);
    s.put('a', { start: 40, end: 40 }, 3);
    s.put('ab', { start: 20, end: 25 }, 9);
    expect(s.findSessions('a', 10, 40).map((e) => e.value)).toEqual([1, 2, 3]);
    expect(s.findSessions('a', 11, 40).map((e) => e.value)).toEqual([2, 3]);
    expect(s.findSessions('a', 11, 39).map((e) => e.value)).toEqual([2]);
    expect(s.findSessions('a', 26, 39)).toEqual([]);
    expect(s.findSessions('b', -Infinity, Infinity)).toEqual([]);
    expect(s.fetch('a').map((e) => e.window.start)).toEqual([0, 20, 40]);
    expect(s.all().map((e) => [e.key, e.window.start])).toEqual([
      ['a', 0],
      ['a', 20],
      ['ab', 20],
      ['a', 40],
    ]);
  });

  it('a put of the same window replaces it; null and remove delete it; both are reported', () => {
    const changes: unknown[] = [];
    const s = create((c) => changes.push(c));
    s.put('a', { start: 0, end: 10 }, 1);
    s.put('a', { start: 0, end: 10 }, 2);
    s.put('a', { start: 0, end: 12 }, 3); // another window: same start, later end
    expect(
      s
        .fetch('a')
        .map((e) => e.value)
        .sort(),
    ).toEqual([2, 3]);
    s.put('a', { start: 0, end: 10 }, null);
    s.remove('a', { start: 0, end: 12 });
    expect(s.fetch('a')).toEqual([]);
    expect(s.size()).toBe(0);
    expect(changes).toEqual([
      { store: 's', key: 'a', window: { start: 0, end: 10 }, value: 1 },
      { store: 's', key: 'a', window: { start: 0, end: 10 }, value: 2 },
      { store: 's', key: 'a', window: { start: 0, end: 12 }, value: 3 },
      { store: 's', key: 'a', window: { start: 0, end: 10 }, value: null },
      { store: 's', key: 'a', window: { start: 0, end: 12 }, value: null },
    ]);
  });
});

describe('the LMDB window and session stores on disk', () => {
  it('keep their windows across a reopen, expire after it, and clear', async () => {
    const w = new PersistentWindowStore(
      'w',
      path.join(folder.dir, 'w'),
      10,
      100,
      Serdes.string,
      Serdes.number,
    );
    w.put('a', 0, 1);
    w.put('a', 50, 2);
    await w.flushed();
    w.close();
    const again = track(
      new PersistentWindowStore('w', path.join(folder.dir, 'w'), 10, 100, Serdes.string, Serdes.number),
    );
    expect(again.fetch('a', 0)).toBe(1);
    again.expire(10); // the earliest start is read back from the files
    expect(again.all().map((e) => e.window.start)).toEqual([50]);
    again.clear();
    expect(again.size()).toBe(0);

    const s = new PersistentSessionStore('s', path.join(folder.dir, 's'), Serdes.string, Serdes.number);
    s.put('k', { start: 0, end: 5 }, 1);
    s.put('k', { start: 8, end: 9 }, 2);
    await s.flushed();
    s.close();
    const reopened = track(
      new PersistentSessionStore('s', path.join(folder.dir, 's'), Serdes.string, Serdes.number),
    );
    reopened.expire(6);
    expect(reopened.fetch('k').map((e) => e.value)).toEqual([2]);
    reopened.clear();
    expect(reopened.all()).toEqual([]);
  });
});

describe('the LMDB window store in time segments', () => {
  const MINUTE = 60_000;
  /** Retention 4 min: segments of 2 min (half the retention; at least a minute). */
  const create = (sub = 'w') =>
    track(
      new PersistentWindowStore(
        'w',
        path.join(folder.dir, sub),
        1_000,
        4 * MINUTE,
        Serdes.string,
        Serdes.number,
      ),
    );
  /** The named databases in the store's files. */
  const databases = (store: PersistentWindowStore<string, number>, sub = 'w'): string[] => {
    folder.close(store);
    const env = openLmdb({ path: path.join(folder.dir, sub), keyEncoding: 'binary' });
    const names = [...env.getKeys({})].map((k) =>
      Buffer.from(k as Buffer)
        .toString()
        .replace(/\0$/, ''),
    );
    void env.close();
    return names.sort();
  };

  it('puts each window in the segment of its start and drops whole segments on expiry', () => {
    const s = create();
    expect(s.segmentIntervalMs).toBe(2 * MINUTE);
    for (const start of [0, MINUTE, 2 * MINUTE, 5 * MINUTE]) s.put('a', start, start / MINUTE);
    s.expire(2 * MINUTE + 1); // segment 0 ends at 2 min: dropped; segment 1 is kept, its first window hidden
    expect(s.all().map((e) => e.window.start)).toEqual([5 * MINUTE]);
    expect(s.fetch('a', 2 * MINUTE)).toBeNull();
    expect(s.fetchRange('a', 0, 10 * MINUTE).map((e) => e.value)).toEqual([5]);
    expect(s.size()).toBe(1);
    expect(databases(s)).toEqual(['meta', 'seg-1', 'seg-2']);
  });

  it('keeps the expiry bound across a reopen', () => {
    const s = create();
    s.put('a', 2 * MINUTE, 1);
    s.put('a', 3 * MINUTE, 2);
    s.expire(2 * MINUTE + 1);
    folder.close(s);
    const again = create();
    expect(again.all().map((e) => e.value)).toEqual([2]);
    expect(again.fetch('a', 2 * MINUTE)).toBeNull();
  });

  it('skips writes to segments past retention of the latest window written, and drops those segments', () => {
    const s = create();
    s.put('old', 0, 1);
    s.put('new', 10 * MINUTE, 2); // segment 0 ends 8 min before the retention of this window starts
    s.put('late', MINUTE, 3); // into the dropped segment: skipped
    expect(s.all().map((e) => e.key)).toEqual(['new']);
    expect(databases(s)).toEqual(['meta', 'seg-5']);
  });

  it('a restore of old windows rebuilds only the live segments, however many segments the changelog spans', () => {
    const s = create();
    // 100 segments of windows, newest first then oldest: LMDB would run out of database slots
    // if every segment were created.
    s.restoreBatch((apply) => {
      apply(Buffer.from('k'), 200 * MINUTE, 200 * MINUTE + 1_000, Buffer.alloc(8));
      for (let m = 0; m < 200; m += 2)
        apply(Buffer.from('k'), m * MINUTE, m * MINUTE + 1_000, Buffer.alloc(8));
    });
    expect(s.all().map((e) => e.window.start / MINUTE)).toEqual([196, 198, 200]);
    // Oldest first: each new segment drops the ones that fell out of retention.
    const ascending = create('ascending');
    ascending.restoreBatch((apply) => {
      for (let m = 0; m <= 200; m += 2)
        apply(Buffer.from('k'), m * MINUTE, m * MINUTE + 1_000, Buffer.alloc(8));
    });
    expect(ascending.all().map((e) => e.window.start / MINUTE)).toEqual([196, 198, 200]);
  });

  it('a queued restore creates and drops segments as it goes, as the batch does', async () => {
    const windowsEvery2Min = (apply: RawApply) => {
      for (let m = 0; m <= 200; m += 2)
        apply(Buffer.from('k'), m * MINUTE, m * MINUTE + 1_000, Buffer.alloc(8));
    };
    const queued = create('queued');
    await queued.restoreQueued(windowsEvery2Min);
    expect(queued.all().map((e) => e.window.start / MINUTE)).toEqual([196, 198, 200]);
    // Writes after it are on the spot, into the segments it left.
    queued.put('k', 202 * MINUTE, 7);
    expect(queued.fetch('k', 202 * MINUTE)).toBe(7);
    const batch = create('batch');
    batch.restoreBatch(windowsEvery2Min);
    batch.put('k', 202 * MINUTE, 7);
    expect(databases(queued, 'queued')).toEqual(databases(batch, 'batch'));
  });

  it('a queued restore that throws part-way writes nothing of its chunk', async () => {
    const s = create('thrown');
    await s.restoreQueued((apply) => apply(Buffer.from('a'), 0, 1_000, Buffer.alloc(8)));
    expect(() =>
      s.restoreQueued((apply) => {
        apply(Buffer.from('b'), MINUTE, MINUTE + 1_000, Buffer.alloc(8));
        apply(Buffer.from('c'), 10 * MINUTE, 10 * MINUTE + 1_000, Buffer.alloc(8));
        throw new Error('corrupt changelog record');
      }),
    ).toThrow('corrupt changelog record');
    await s.flushed();
    expect(s.all().map((e) => e.key)).toEqual(['a']);
    s.put('d', 10 * MINUTE, 1);
    expect(s.all().map((e) => e.key)).toEqual(['d']); // segment 0 dropped: out of d's retention
  });

  it('a queued restore of a chunk spanning a day of segments creates only the live ones', async () => {
    const s = create('sparse');
    const day = 24 * 60;
    await s.restoreQueued((apply) => {
      for (let m = 0; m <= day; m += 1)
        apply(Buffer.from('k'), m * MINUTE, m * MINUTE + 1_000, Buffer.alloc(8));
    });
    await s.restoreQueued((apply) => {
      for (let m = day; m <= 2 * day; m += 1)
        apply(Buffer.from('k'), m * MINUTE, m * MINUTE + 1_000, Buffer.alloc(8));
    });
    // Retention 4 min: the windows of the last 4 minutes, in segments 1438-1440.
    expect(s.all().map((e) => e.window.start / MINUTE - 2 * day)).toEqual([-4, -3, -2, -1, 0]);
    expect(databases(s, 'sparse')).toEqual(['meta', 'seg-1438', 'seg-1439', 'seg-1440']);
  });

  it('moves a store written in the layout before segments into segments', () => {
    const legacyPath = path.join(folder.dir, 'legacy');
    const env = openLmdb<Buffer, Buffer>({ path: legacyPath, keyEncoding: 'binary', encoding: 'binary' });
    const windows = env.openDB<Buffer, Buffer>({
      name: 'windows',
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    const byStart = env.openDB<Buffer, Buffer>({
      name: 'by-start',
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    const value = (n: number) => Serdes.number.serialize(n);
    env.transactionSync(() => {
      for (const [key, start, n] of [
        ['a', 0, 1],
        ['a', 3 * MINUTE, 2],
        ['b', 3 * MINUTE, 3],
      ] as const) {
        const part = keyPart(Buffer.from(key));
        windows.putSync(Buffer.concat([part, encodeTime(start)]), value(n));
        byStart.putSync(Buffer.concat([encodeTime(start), part]), Buffer.alloc(0));
      }
    });
    void env.close();
    const s = create('legacy');
    expect(s.all().map((e) => [e.key, e.window.start, e.value])).toEqual([
      ['a', 0, 1],
      ['a', 3 * MINUTE, 2],
      ['b', 3 * MINUTE, 3],
    ]);
    expect(databases(s, 'legacy')).toEqual(['meta', 'seg-0', 'seg-1']);
  });
});

describe.each([7, 42, 2026])(
  'the segmented LMDB window store against the in-memory one (seed %i)',
  (seed) => {
    // As a windowed aggregation drives it: stream time moves forward, writes go to windows that
    // are not expired, expire() follows stream time (coarsely), and reads ask for live windows.
    // Windows starting at or after stream time minus the retention must read the same from both;
    // below that the LMDB store may already have dropped a whole segment (Kafka's observed time).
    it('reads the same as windows are written, deleted and expired across segments', () => {
      const SECOND = 1_000;
      const retentionMs = 150 * SECOND; // segments of 75 s
      const lmdb = track(
        new PersistentWindowStore(
          'w',
          path.join(folder.dir, 'p'),
          SECOND,
          retentionMs,
          Serdes.string,
          Serdes.number,
        ),
      );
      const memory = new InMemoryWindowStore<string, number>('w', SECOND, retentionMs);
      const rnd = seededRandom(seed);
      const keys = ['a', 'b', 'c', 'ab', ''];
      let streamTime = 0;
      for (let step = 0; step < 3_000; step++) {
        streamTime += Math.floor(rnd() * 400);
        const live = streamTime - retentionMs;
        const key = keys[Math.floor(rnd() * keys.length)];
        const start = Math.max(0, streamTime - Math.floor(rnd() * 60) * SECOND);
        const roll = rnd();
        if (roll < 0.1) {
          for (const s of [lmdb, memory]) s.put(key, start, null);
        } else if (roll < 0.8) {
          const n = Math.floor(rnd() * 1_000);
          for (const s of [lmdb, memory]) s.put(key, start, n);
        } else {
          const at = live + Math.floor(rnd() * 200) * SECOND;
          expect(lmdb.fetch(key, at)).toBe(memory.fetch(key, at));
          const from = Math.max(live, at - 30 * SECOND);
          expect(lmdb.fetchRange(key, from, at).map((e) => [e.window.start, e.value])).toEqual(
            memory.fetchRange(key, from, at).map((e) => [e.window.start, e.value]),
          );
        }
        const bound = coarseExpiry(live, retentionMs);
        for (const s of [lmdb, memory]) s.expire(bound);
      }
      const liveNow = (e: { window: { start: number } }) => e.window.start >= streamTime - retentionMs;
      const view = (entries: { key: string; window: { start: number }; value: number }[]) =>
        entries
          .filter(liveNow)
          .map((e) => `${e.key}@${e.window.start}=${e.value}`)
          .sort();
      expect(view(lmdb.all())).toEqual(view(memory.all()));
      expect(streamTime).toBeGreaterThan(3 * retentionMs); // the run crossed several segments
    });
  },
);

describe.each([5, 77])('the LMDB session store against the in-memory one (seed %i)', (seed) => {
  it('finds the same sessions as they are written, removed and expired', () => {
    const SECOND = 1_000;
    const retentionMs = 150 * SECOND;
    const lmdb = track(
      new PersistentSessionStore('s', path.join(folder.dir, 'p'), Serdes.string, Serdes.number),
    );
    const memory = new InMemorySessionStore<string, number>('s');
    const rnd = seededRandom(seed);
    const keys = ['a', 'b', 'ab'];
    let streamTime = 0;
    for (let step = 0; step < 3_000; step++) {
      streamTime += Math.floor(rnd() * 400);
      const live = streamTime - retentionMs;
      const key = keys[Math.floor(rnd() * keys.length)];
      const end = Math.max(0, streamTime - Math.floor(rnd() * 60) * SECOND);
      const window = { start: Math.max(0, end - Math.floor(rnd() * 20) * SECOND), end };
      const roll = rnd();
      if (roll < 0.15) {
        for (const s of [lmdb, memory]) s.remove(key, window);
      } else if (roll < 0.8) {
        const n = Math.floor(rnd() * 1_000);
        for (const s of [lmdb, memory]) s.put(key, window, n);
      } else {
        const from = live + Math.floor(rnd() * 100) * SECOND;
        const latestStart = from + Math.floor(rnd() * 100) * SECOND;
        const view = (e: { window: { start: number; end: number }; value: number }[]) =>
          e.map((x) => `${x.window.start}-${x.window.end}=${x.value}`).sort();
        expect(view(lmdb.findSessions(key, from, latestStart))).toEqual(
          view(memory.findSessions(key, from, latestStart)),
        );
      }
      const bound = coarseExpiry(live, retentionMs);
      for (const s of [lmdb, memory]) s.expire(bound);
    }
    const all = (entries: { key: string; window: { start: number; end: number }; value: number }[]) =>
      entries.map((e) => `${e.key}@${e.window.start}-${e.window.end}=${e.value}`).sort();
    expect(all(lmdb.all())).toEqual(all(memory.all()));
    expect(lmdb.size()).toBe(memory.all().length);
  });
});
