/**
 * `npm run bench:streams-stores`: what a windowed aggregation's store costs per update, in one
 * process, with no network: each update is a fetch of (key, window start) and a put of the new
 * value, as the windowed count does. The store behind the record cache (the caching window store
 * over the in-memory one), the in-memory store alone, and the LMDB window store in write scopes
 * of 1,000 (as the runtime's slices). Keys are `user<n>` round robin; a window spans 10,000
 * updates, so with 10,000 keys every update writes a new window and with 1,000 each window is
 * updated 10 times. Prints ns per update for each run.
 *
 *   npm run bench:streams-stores -- [--updates 200000] [--runs 4]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Serdes } from '../streams';
import { CachingWindowStore } from '../streams/state/caching-window';
import { InMemoryWindowStore } from '../streams/state/memory';
import { PersistentWindowStore } from '../streams/state/persistent-window';
import { RecordCache } from '../streams/state/record-cache';
import type { WindowStore } from '../streams/state/stores';

interface Stamped {
  value: number;
  timestamp: number;
}

interface Options {
  updates: number;
  runs: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { updates: 200_000, runs: 4 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    if (argv[i] === '--updates') o.updates = value;
    else if (argv[i] === '--runs') o.runs = value;
    else throw new Error(`unknown flag ${argv[i]}; see the header of bench/streams-stores.ts`);
  }
  return o;
}

const WINDOW_MS = 10_000;
const DAY_MS = 86_400_000;

const stampedSerde = {
  name: 'stamped',
  serialize: (v: Stamped) => {
    const b = Buffer.allocUnsafe(16);
    b.writeDoubleBE(v.value, 0);
    b.writeDoubleBE(v.timestamp, 8);
    return b;
  },
  deserialize: (b: Buffer): Stamped => ({ value: b.readDoubleBE(0), timestamp: b.readDoubleBE(8) }),
};

/** ns per update of `updates` fetch-then-put updates over `keys` keys, `scope` wrapping each 1,000. */
function run(
  store: WindowStore<string, Stamped>,
  updates: number,
  keys: number,
  scope: (fn: () => void) => void = (fn) => fn(),
  flush: () => void = () => undefined,
): number {
  const started = process.hrtime.bigint();
  for (let slice = 0; slice < updates; slice += 1_000) {
    scope(() => {
      for (let i = slice; i < Math.min(slice + 1_000, updates); i++) {
        const key = `user${i % keys}`;
        const start = Math.floor(i / WINDOW_MS) * WINDOW_MS;
        const old = store.fetch(key, start);
        store.put(key, start, { value: (old ? old.value : 0) + 1, timestamp: i });
      }
    });
    if (slice % 30_000 === 0) flush();
  }
  flush();
  return Number(process.hrtime.bigint() - started) / updates;
}

function main(): void {
  const o = parseArgs(process.argv.slice(2));
  console.log(
    `window store updates (fetch, then put), ${o.updates.toLocaleString('en-US')} per run, ns per update`,
  );
  const line = (name: string, measure: () => number) => {
    const figures = Array.from({ length: o.runs }, measure).map((ns) =>
      Math.round(ns).toLocaleString('en-US'),
    );
    console.log(`${name.padEnd(42)} ${figures.join('  ')}`);
  };
  for (const keys of [1_000, 10_000]) {
    line(`caching over in-memory, ${keys.toLocaleString('en-US')} keys`, () => {
      const cached = new CachingWindowStore(
        new InMemoryWindowStore<string, Stamped>('w', WINDOW_MS, DAY_MS, () => undefined),
        new RecordCache(),
        'w',
      );
      return run(cached, o.updates, keys, undefined, () => cached.flush());
    });
    line(`in-memory, ${keys.toLocaleString('en-US')} keys`, () =>
      run(new InMemoryWindowStore<string, Stamped>('w', WINDOW_MS, DAY_MS, () => undefined), o.updates, keys),
    );
  }
  line('LMDB, 10,000 keys (every window new)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-bench-stores-'));
    const lmdb = new PersistentWindowStore('w', dir, WINDOW_MS, DAY_MS, Serdes.string, stampedSerde);
    try {
      return run(lmdb, o.updates, 10_000, (fn) => lmdb.inWriteScope(fn));
    } finally {
      lmdb.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

main();
