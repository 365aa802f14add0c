/**
 * The shared LMDB base (streams/state/lmdb-base.ts) and restore's batch apply: changelog records
 * written into the LMDB stores as bytes, a chunk per write transaction, give the same store as the
 * writes that produced them (and the in-memory store restored by decoding them); no change event
 * comes out of a restore; the base's size/clear/flushed/close behave alike for the three stores.
 * Also the pieces the batch path relies on: the time layout without BigInt, the changelog codec's
 * raw view, the checkpoint's stream time and a task's restored stream time.
 */
import * as path from 'node:path';
import { ChangelogCodec, changelogConfigs } from '../../../streams/runtime/changelog';
import {
  checkpointStreamTime,
  readCheckpoint,
  STREAM_TIME_KEY,
  writeCheckpoint,
} from '../../../streams/runtime/checkpoint';
import {
  changelogApplier,
  chunkOf,
  restoreApplier,
  type ChangelogRecord,
} from '../../../streams/runtime/restore';
import { StreamTask } from '../../../streams/runtime/task';
import { createStateStore } from '../../../streams/state/factory';
import { LmdbStore } from '../../../streams/state/lmdb-base';
import { decodeTime, encodeTime } from '../../../streams/state/lmdb-keys';
import {
  isBatchRestorable,
  type KeyValueStore,
  type SessionStore,
  type StateStore,
  type StoreChange,
  type WindowStore,
} from '../../../streams/state/stores';
import type { StoreDef } from '../../../streams/topology/nodes';
import { storeDef, storeFolder } from './store-fixtures';

const folder = storeFolder('tide-lmdb-restore-');
const def = (kind: StoreDef['kind']): StoreDef => storeDef(kind, { timestamped: true });

/** A store of `kind` (LMDB when `sub` is given, else in memory), recording its change events. */
function open(kind: StoreDef['kind'], sub: string | undefined, events: StoreChange[] = []): StateStore {
  return folder.track(createStateStore(def(kind), sub && path.join(folder.dir, sub), (c) => events.push(c)));
}

const stamped = (value: number, timestamp = 5) => ({ value, timestamp });

/** Writes of each kind, deletes and rewrites included, through the store's own API. */
function write(store: StateStore): void {
  if (store.kind === 'keyValue') {
    const kv = store as KeyValueStore<string, unknown>;
    kv.put('a', stamped(1));
    kv.put('b', stamped(2));
    kv.put('a', stamped(3));
    kv.put('c', stamped(4));
    kv.put('b', null);
  } else if (store.kind === 'window') {
    const w = store as WindowStore<string, unknown>;
    w.put('a', 0, stamped(1));
    w.put('a', 10, stamped(2));
    w.put('b', -20, stamped(3)); // negative starts keep their order
    w.put('a', 0, stamped(4));
    w.put('a', 10, null);
  } else {
    const s = store as SessionStore<string, unknown>;
    s.put('a', { start: 0, end: 5 }, stamped(1));
    s.put('a', { start: 20, end: 30 }, stamped(2));
    s.put('b', { start: -7, end: 3 }, stamped(3));
    s.remove('a', { start: 0, end: 5 });
    s.put('a', { start: 20, end: 30 }, stamped(9));
  }
}

/** What a store holds, comparable across kinds and engines. */
function contents(store: StateStore): unknown {
  if (store.kind === 'keyValue')
    return [...(store as KeyValueStore<string, unknown>).all()].sort((x, y) => x[0].localeCompare(y[0]));
  return (store as WindowStore<string, unknown>).all();
}

/** The changelog records the writes produced, as the runtime encodes them. */
function changelogOf(kind: StoreDef['kind']): ChangelogRecord[] {
  const codec = new ChangelogCodec(def(kind));
  const events: StoreChange[] = [];
  write(open(kind, undefined, events));
  return events.map((c, i) => ({ ...codec.encode(c), timestampMs: i }));
}

describe.each(['keyValue', 'window', 'session'] as const)("a %s store's change events", (kind) => {
  it('carry bytes (LMDB) that encode to the same changelog records as the codec serializing', () => {
    const events: StoreChange[] = [];
    write(open(kind, 'with-bytes', events));
    const codec = new ChangelogCodec(def(kind));
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      const { keyBytes, valueBytes, ...plain } = e;
      if (kind !== 'session') expect(keyBytes).toBeDefined(); // the hot paths hand them over
      if (valueBytes !== undefined) expect(valueBytes === null).toBe(e.value === null);
      expect(codec.encode(e)).toEqual(codec.encode(plain));
    }
  });
});

describe.each(['keyValue', 'window', 'session'] as const)('restoring a %s store', (kind) => {
  it('LMDB takes the changelog as bytes in one batch and ends equal to the store that wrote it', () => {
    const written = open(kind, 'written');
    write(written);
    const events: StoreChange[] = [];
    const restored = open(kind, 'restored', events);
    expect(isBatchRestorable(restored)).toBe(true);
    const records = changelogOf(kind);
    const apply = changelogApplier(restored, new ChangelogCodec(def(kind)));
    apply(chunkOf(records.slice(0, 2))); // two chunks, as two fetches would be
    apply(chunkOf(records.slice(2)));
    expect(contents(restored)).toEqual(contents(written));
    expect(restored.size()).toBe(written.size());
    expect(events).toEqual([]); // a restore is never written back to the changelog
  });

  it('a restore queues the LMDB writes and resolves once they are readable, equal to the store that wrote it', async () => {
    const written = open(kind, 'written');
    write(written);
    const events: StoreChange[] = [];
    const restored = open(kind, 'queued', events);
    const records = changelogOf(kind);
    const apply = restoreApplier(restored, new ChangelogCodec(def(kind)));
    const first = apply(chunkOf(records.slice(0, 2)));
    const second = apply(chunkOf(records.slice(2)));
    expect(first).toBeInstanceOf(Promise);
    await Promise.all([first, second]);
    expect(contents(restored)).toEqual(contents(written));
    expect(restored.size()).toBe(written.size());
    expect(events).toEqual([]);
    // The store writes on the spot again afterwards.
    changelogApplier(restored, new ChangelogCodec(def(kind)))(chunkOf(records));
    expect(contents(restored)).toEqual(contents(written));
  });

  it('in memory, the same records decoded give the same contents', () => {
    const written = open(kind, 'written');
    write(written);
    const memory = open(kind, undefined);
    expect(isBatchRestorable(memory)).toBe(false);
    changelogApplier(memory, new ChangelogCodec(def(kind)))(chunkOf(changelogOf(kind)));
    expect(contents(memory)).toEqual(contents(written));
  });

  it('an empty batch is no write, and a restored store survives a reopen', async () => {
    const store = open(kind, 'again') as StateStore & LmdbStore<string>;
    store.restoreBatch(() => undefined);
    expect(store.size()).toBe(0);
    changelogApplier(store, new ChangelogCodec(def(kind)))(chunkOf(changelogOf(kind)));
    const before = contents(store);
    await store.flushed();
    folder.close(store);
    const reopened = open(kind, 'again');
    expect(contents(reopened)).toEqual(before);
  });
});

describe('the LMDB base', () => {
  it('size counts entries, not the index; clear empties every database and resets expiry', () => {
    const w = open('window', 'w') as WindowStore<string, unknown>;
    w.put('a', 0, stamped(1));
    w.put('b', 0, stamped(2));
    expect(w.size()).toBe(2);
    (w as unknown as LmdbStore<string>).clear();
    expect(w.size()).toBe(0);
    expect(w.all()).toEqual([]);
    // After clear, the earliest start is unknown again: a later window still expires.
    w.put('a', 100, stamped(3));
    w.expire(200);
    expect(w.size()).toBe(0);
  });

  it('the restore batch keeps what expiry needs: restored windows and sessions expire', () => {
    const w = open('window', 'w');
    changelogApplier(w, new ChangelogCodec(def('window')))(chunkOf(changelogOf('window')));
    (w as WindowStore<string, unknown>).expire(5);
    expect((w as WindowStore<string, unknown>).all().map((e) => e.window.start)).toEqual([]);
    const s = open('session', 's');
    changelogApplier(s, new ChangelogCodec(def('session')))(chunkOf(changelogOf('session')));
    (s as SessionStore<string, unknown>).expire(10);
    expect((s as SessionStore<string, unknown>).all().map((e) => e.window)).toEqual([{ start: 20, end: 30 }]);
  });

  it('the three stores share it', () => {
    for (const kind of ['keyValue', 'window', 'session'] as const) {
      expect(open(kind, kind)).toBeInstanceOf(LmdbStore);
    }
  });
});

describe('what the batch path relies on', () => {
  it('times encode in numeric byte order, as the BigInt layout did, and decode back', () => {
    const times = [
      Number.MIN_SAFE_INTEGER,
      -(2 ** 40) - 3,
      -4_294_967_297,
      -4_294_967_296,
      -1,
      0,
      1,
      4_294_967_295,
      4_294_967_296,
      1_767_225_600_000,
      Number.MAX_SAFE_INTEGER,
    ];
    const bigIntLayout = (ms: number) => {
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(BigInt(ms) + (1n << 63n), 0);
      return b;
    };
    for (const t of times) {
      expect(encodeTime(t)).toEqual(bigIntLayout(t));
      expect(decodeTime(encodeTime(t), 0)).toBe(t);
    }
    const sorted = times.map(encodeTime).sort(Buffer.compare);
    expect(sorted.map((b) => decodeTime(b, 0))).toEqual(times);
    expect(decodeTime(encodeTime(Infinity), 0)).toBe(Number.MAX_SAFE_INTEGER);
    expect(decodeTime(encodeTime(-Infinity), 0)).toBe(Number.MIN_SAFE_INTEGER);
    expect(decodeTime(encodeTime(1.9), 0)).toBe(1);
    expect(() => encodeTime(NaN)).toThrow(RangeError);
  });

  it('the changelog codec reads windows without BigInt, negative ones included', () => {
    const codec = new ChangelogCodec(def('window'));
    const change = { store: 's', key: 'k', window: { start: -4_294_967_297, end: 1_767_225_600_000 } };
    const { key, value } = codec.encode({ ...change, value: stamped(1) });
    expect(key.readBigInt64BE(key.length - 16)).toBe(-4_294_967_297n);
    const raw: unknown[][] = [];
    codec.applyRaw(key, value, (...args) => raw.push(args));
    expect(raw).toEqual([[Buffer.from('k'), -4_294_967_297, 1_767_225_600_000, value]]);
    expect(codec.decode(key, null)).toEqual({ key: 'k', window: change.window, value: null });
  });

  it('a checkpoint keeps the stream time beside the offsets', () => {
    writeCheckpoint(folder.dir, '0_1', { 'app-c-changelog': 12, [STREAM_TIME_KEY]: 30_000 });
    const read = readCheckpoint(folder.dir, '0_1');
    expect(read['app-c-changelog']).toBe(12);
    expect(checkpointStreamTime(read)).toBe(30_000);
    expect(checkpointStreamTime(readCheckpoint(folder.dir, 'none'))).toBe(-1);
  });

  it("a task's restored stream time never goes back", () => {
    const task = new StreamTask(
      { id: '0_0', partition: 0, applicationId: 'a', nodes: [], stores: [], inputs: [] },
      {
        collector: { partitionsOf: () => 1, send: () => undefined },
        wallClockMs: () => 0,
        caching: false,
        maxTaskIdleMs: 0,
        createStore: () => {
          throw new Error('no stores');
        },
        globalStores: new Map(),
      },
    );
    expect(task.metrics.streamTimeMs).toBe(-1);
    task.restoreStreamTime(30_000);
    task.restoreStreamTime(-1);
    task.restoreStreamTime(20_000);
    expect(task.metrics.streamTimeMs).toBe(30_000);
  });
});

describe('changelog topic configs', () => {
  it('compacted; window and session stores also deleted after their retention plus the extra', () => {
    expect(changelogConfigs(def('keyValue'), 86_400_000)).toEqual({ 'cleanup.policy': 'compact' });
    for (const kind of ['window', 'session'] as const) {
      expect(changelogConfigs(def(kind), 5_000)).toEqual({
        'cleanup.policy': 'compact,delete',
        'retention.ms': '6000', // def(): retention 1,000 ms
      });
    }
    expect(changelogConfigs({ ...def('window'), retentionMs: undefined }, 5_000)).toEqual({
      'cleanup.policy': 'compact',
    });
  });
});
