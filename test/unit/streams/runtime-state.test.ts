/** The runtime's changelog records, checkpoint files and restore application (no cluster). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Serdes } from '../../../streams';
import { ChangelogCodec, changelogTopic } from '../../../streams/runtime/changelog';
import {
  checkpointPath,
  readCheckpoint,
  removeCheckpoint,
  writeCheckpoint,
} from '../../../streams/runtime/checkpoint';
import { applyChange } from '../../../streams/runtime/restore';
import {
  InMemoryKeyValueStore,
  InMemorySessionStore,
  InMemoryWindowStore,
} from '../../../streams/state/memory';
import type { StoreChange } from '../../../streams/state/stores';
import type { StoreDef } from '../../../streams/topology/nodes';

const base = { persistent: false, logged: true, global: false };

describe('changelog records', () => {
  it('names the topic <app>-<store>-changelog', () => {
    expect(changelogTopic('wc', 'counts')).toBe('wc-counts-changelog');
  });

  it('a timestamped key-value store: key serde bytes, stamped value; a delete is a tombstone', () => {
    const def: StoreDef = {
      ...base,
      name: 'counts',
      kind: 'keyValue',
      key: Serdes.string,
      value: Serdes.number,
      timestamped: true,
    };
    const codec = new ChangelogCodec(def);
    const put = codec.encode({ store: 'counts', key: 'w', value: { value: 3, timestamp: 42 } });
    expect(put.key).toEqual(Serdes.string.serialize('w'));
    expect(codec.decode(put.key, put.value)).toEqual({ key: 'w', value: { value: 3, timestamp: 42 } });
    const del = codec.encode({ store: 'counts', key: 'w', value: null });
    expect(del.value).toBeNull();
    expect(codec.decode(del.key, del.value)).toEqual({ key: 'w', value: null });
  });

  it('a store without serdes (internal buffers): structured values, equal keys give equal bytes', () => {
    const codec = new ChangelogCodec({ ...base, name: 'buf', kind: 'keyValue' });
    const value = { held: [1, 2], at: Buffer.from('x') };
    const a = codec.encode({ store: 'buf', key: { k: 'a', n: 1 }, value });
    const b = codec.encode({ store: 'buf', key: { k: 'a', n: 1 }, value: null });
    expect(a.key.equals(b.key)).toBe(true);
    expect(codec.decode(a.key, a.value)).toEqual({ key: { k: 'a', n: 1 }, value });
  });

  it('window and session keys carry the window', () => {
    const def: StoreDef = { ...base, name: 'win', kind: 'window', key: Serdes.string, value: Serdes.number };
    const codec = new ChangelogCodec(def);
    const change: StoreChange = { store: 'win', key: 'k', window: { start: 1000, end: 2000 }, value: 5 };
    const { key, value } = codec.encode(change);
    const other = codec.encode({ ...change, window: { start: 2000, end: 3000 } });
    expect(key.equals(other.key)).toBe(false);
    expect(codec.decode(key, value)).toEqual({ key: 'k', window: { start: 1000, end: 2000 }, value: 5 });
  });
});

describe('applying restored changes', () => {
  it('puts, deletes, windows and sessions land in their stores', () => {
    const kv = new InMemoryKeyValueStore<string, number>('kv');
    applyChange(kv, { key: 'a', value: 1 });
    applyChange(kv, { key: 'b', value: 2 });
    applyChange(kv, { key: 'a', value: null });
    expect([...kv.all()]).toEqual([['b', 2]]);

    const win = new InMemoryWindowStore<string, number>('w', 1000, 10_000);
    applyChange(win, { key: 'k', window: { start: 0, end: 1000 }, value: 7 });
    expect(win.fetch('k', 0)).toBe(7);

    const ses = new InMemorySessionStore<string, number>('s');
    applyChange(ses, { key: 'k', window: { start: 0, end: 50 }, value: 1 });
    applyChange(ses, { key: 'k', window: { start: 100, end: 150 }, value: 2 });
    applyChange(ses, { key: 'k', window: { start: 0, end: 50 }, value: null });
    expect(ses.fetch('k').map((e) => e.value)).toEqual([2]);
  });

  it('a restore does not write the changelog again (the listener sees what the store does)', () => {
    const seen: StoreChange[] = [];
    let restoring = true;
    const kv = new InMemoryKeyValueStore<string, number>('kv', (c) => {
      if (!restoring) seen.push(c);
    });
    applyChange(kv, { key: 'a', value: 1 });
    restoring = false;
    kv.put('a', 2);
    expect(seen).toEqual([{ store: 'kv', key: 'a', value: 2 }]);
  });
});

describe('checkpoint files', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ckpt-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips, and a missing or corrupt file means restore from the beginning', () => {
    expect(readCheckpoint(dir, '1_0')).toEqual({});
    writeCheckpoint(dir, '1_0', { 'wc-counts-changelog': 120 });
    expect(readCheckpoint(dir, '1_0')).toEqual({ 'wc-counts-changelog': 120 });
    writeFileSync(checkpointPath(dir, '1_0'), '{not json');
    expect(readCheckpoint(dir, '1_0')).toEqual({});
    writeFileSync(checkpointPath(dir, '1_0'), JSON.stringify({ a: -1, b: 1.5, c: 'x', d: 7 }));
    expect(readCheckpoint(dir, '1_0')).toEqual({ d: 7 });
    removeCheckpoint(dir, '1_0');
    expect(readCheckpoint(dir, '1_0')).toEqual({});
  });
});
