/**
 * The store write scope (WriteScoped, streams/state/lmdb-base.ts) and the task's use of it: the
 * runtime processes a fetched chunk with each LMDB store's writes in one transaction. Inside it,
 * reads see the scope's own writes; after it, the writes are in the files (a store opened again
 * reads them); a throw inside still keeps the writes made before it, as one transaction per write
 * did; and a task runs everything it can process, and its punctuations, inside its stores' scopes.
 */
import * as path from 'node:path';
import { StreamTask } from '../../../streams/runtime/task';
import { createStateStore } from '../../../streams/state/factory';
import {
  isWriteScoped,
  type KeyValueStore,
  type SessionStore,
  type StateStore,
  type WindowStore,
} from '../../../streams/state/stores';
import type { StoreDef } from '../../../streams/topology/nodes';
import { storeDef, storeFolder } from './store-fixtures';

const folder = storeFolder('tide-write-scope-');
const def = (kind: StoreDef['kind']): StoreDef => storeDef(kind, { timestamped: false });

function open(kind: StoreDef['kind'], sub = 'store'): StateStore {
  return folder.track(createStateStore(def(kind), path.join(folder.dir, sub)));
}

function reopen(store: StateStore, kind: StoreDef['kind'], sub = 'store'): StateStore {
  folder.close(store);
  return open(kind, sub);
}

/** Writes `n` of `key` and reads it back, the same way for every kind. */
const ops = {
  keyValue: {
    put: (s: StateStore, key: string, n: number) => (s as KeyValueStore<string, number>).put(key, n),
    get: (s: StateStore, key: string) => (s as KeyValueStore<string, number>).get(key),
  },
  window: {
    put: (s: StateStore, key: string, n: number) => (s as WindowStore<string, number>).put(key, 10, n),
    get: (s: StateStore, key: string) => (s as WindowStore<string, number>).fetch(key, 10),
  },
  session: {
    put: (s: StateStore, key: string, n: number) =>
      (s as SessionStore<string, number>).put(key, { start: 10, end: 20 }, n),
    get: (s: StateStore, key: string) =>
      (s as SessionStore<string, number>).fetch(key).find((e) => e.window.start === 10)?.value ?? null,
  },
} as const;

describe.each(['keyValue', 'window', 'session'] as const)('the write scope of an LMDB %s store', (kind) => {
  const { put, get } = ops[kind];

  it('reads its own writes inside and leaves them in the files after', () => {
    let store = open(kind);
    expect(isWriteScoped(store)).toBe(true);
    const seen: (number | null)[] = [];
    if (!isWriteScoped(store)) return;
    store.inWriteScope(() => {
      put(store, 'a', 1);
      seen.push(get(store, 'a'));
      put(store, 'a', 2);
      put(store, 'b', 3);
      seen.push(get(store, 'a'));
    });
    expect(seen).toEqual([1, 2]);
    expect(get(store, 'a')).toBe(2);
    store = reopen(store, kind);
    expect([get(store, 'a'), get(store, 'b')]).toEqual([2, 3]);
  });

  it('rethrows what the work threw and keeps the writes made before it', () => {
    const store = open(kind);
    if (!isWriteScoped(store)) throw new Error('not scoped');
    expect(() =>
      store.inWriteScope(() => {
        put(store, 'a', 7);
        throw new Error('processor failed');
      }),
    ).toThrow('processor failed');
    expect(get(reopen(store, kind), 'a')).toBe(7);
  });
});

describe('a task and its stores write scopes', () => {
  /** A task with two LMDB stores whose scopes are recorded around the work they enclose. */
  function taskWithScopedStores(log: string[]): StreamTask {
    return new StreamTask(
      {
        id: '0_0',
        partition: 0,
        applicationId: 'a',
        nodes: [],
        stores: [def('keyValue'), def('window')],
        inputs: [],
      },
      {
        collector: { partitionsOf: () => 1, send: () => undefined },
        wallClockMs: () => 0,
        caching: false,
        maxTaskIdleMs: 0,
        createStore: (d) => {
          const store = open(d.kind, d.name);
          if (!isWriteScoped(store)) throw new Error('not scoped');
          const scope = store.inWriteScope.bind(store);
          return Object.assign(store, {
            inWriteScope(fn: () => void) {
              log.push(`open ${d.name}`);
              scope(fn);
              log.push(`close ${d.name}`);
            },
          });
        },
        globalStores: new Map(),
      },
    );
  }

  it('runs the work inside the scope of every store that has one', () => {
    const log: string[] = [];
    const task = taskWithScopedStores(log);
    task.inStoreWriteScope(() => log.push('work'));
    expect(log).toEqual(['open s-window', 'open s-keyValue', 'work', 'close s-keyValue', 'close s-window']);
  });

  it('processAvailable opens the scopes once, around the whole run, and counts what it processed', () => {
    const log: string[] = [];
    const task = taskWithScopedStores(log);
    expect(task.processAvailable()).toBe(0);
    expect(log).toEqual(['open s-window', 'open s-keyValue', 'close s-keyValue', 'close s-window']);
  });
});

describe.each(['keyValue', 'window', 'session'] as const)(
  'an LMDB %s store emptied and written again',
  (kind) => {
    // Under `useWritemap`, lmdb 3.5.6 aborted the whole process at the commit after a database's last
    // entry was deleted; the environments are opened without it (lmdb-base.ts).
    const { put, get } = ops[kind];
    const remove = (s: StateStore, key: string) => {
      if (kind === 'session') (s as SessionStore<string, number>).remove(key, { start: 10, end: 20 });
      else if (kind === 'window') (s as WindowStore<string, number>).put(key, 10, null);
      else (s as KeyValueStore<string, number>).put(key, null);
    };

    it('outside a scope and inside one', () => {
      const store = open(kind);
      put(store, 'a', 1);
      remove(store, 'a');
      put(store, 'b', 2);
      expect([get(store, 'a'), get(store, 'b')]).toEqual([null, 2]);
      if (!isWriteScoped(store)) throw new Error('not scoped');
      store.inWriteScope(() => remove(store, 'b'));
      store.inWriteScope(() => put(store, 'c', 3));
      expect([get(store, 'b'), get(store, 'c')]).toEqual([null, 3]);
    });
  },
);
