/**
 * What the store tests share: a temp folder per test, the stores opened in it (closed after each
 * test), and a store definition with string keys and number values.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Serdes } from '../../../streams';
import type { StateStore } from '../../../streams/state/stores';
import type { StoreDef } from '../../../streams/topology/nodes';

export interface StoreFolder {
  /** This test's folder. */
  readonly dir: string;
  /** Closes `store` after the test. */
  track<S extends StateStore>(store: S): S;
  /** Closes `store` now (to open its files again). */
  close(store: StateStore): void;
}

/** Registers the folder's beforeEach/afterEach; call at the top of a test file. */
export function storeFolder(prefix: string): StoreFolder {
  let dir = '';
  const opened: StateStore[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => {
    for (const s of opened.splice(0)) s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    track(store) {
      opened.push(store);
      return store;
    },
    close(store) {
      store.close();
      opened.splice(opened.indexOf(store), 1);
    },
  };
}

/** `s-<kind>`: string keys, number values, windows of 10 ms kept 1 s, logged. */
export function storeDef(kind: StoreDef['kind'], options: { timestamped: boolean }): StoreDef {
  return {
    name: `s-${kind}`,
    kind,
    key: Serdes.string as StoreDef['key'],
    value: Serdes.number as StoreDef['value'],
    windowSizeMs: 10,
    retentionMs: 1_000,
    persistent: true,
    logged: true,
    global: false,
    timestamped: options.timestamped,
  };
}
