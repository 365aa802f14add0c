/**
 * What the three LMDB stores (key-value, window, session) share: one LMDB environment per task
 * and store, opened with binary keys and values and without an fsync per write (the changelog is
 * the durable copy; the runtime checkpoints only after flushed()), and the plumbing around it —
 * size, clear, flushed, flush, close, the key part of a typed key — plus `restoreBatch`: changelog
 * records applied as bytes, a whole fetched chunk in one write transaction.
 *
 * The environment is opened with `useWritemap`: a transaction writes its pages straight into the
 * memory map instead of into malloc'd copies written out at commit. A store write outside a batch
 * is its own transaction, and its commit was a third of the CPU of a windowed count on LMDB;
 * with the write map the windowed count on LMDB ran 35,000–37,600 records/s against
 * 24,600–25,900 (`npm run bench:streams -- --only LMDB`, interleaved; docs/streams.md). Crash
 * safety is LMDB's copy-on-write either way: a transaction cut short by a SIGKILL leaves the last
 * committed tree; what the write map gives up is protection from stray native writes into the
 * map (none of Tide's code is native). Nested transactionSync calls run in the outer transaction
 * (lmdb-js does so with a write map).
 *
 * Restore is why the batch exists: a store write outside a transaction is its own LMDB write
 * transaction (commit included), which capped restores at ~50,000 records/s on the window store;
 * and the stores keep the serdes' bytes, so the changelog's bytes go in without a round trip
 * through the serdes.
 */
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Serde } from '../serdes';
import { keyPart } from './lmdb-keys';
import type { RawApply } from './stores';

export const EMPTY = Buffer.alloc(0);
const BINARY = { keyEncoding: 'binary', encoding: 'binary' } as const;

export abstract class LmdbStore<K> {
  readonly persistent = true as const;
  protected readonly root: RootDatabase<Buffer, Buffer>;

  constructor(
    readonly name: string,
    readonly path: string,
    protected readonly keySerde: Serde<K>,
  ) {
    this.root = open<Buffer, Buffer>({ path, ...BINARY, noSync: true, useWritemap: true });
  }

  /** Number of entries (of the main database: indexes are not counted). */
  size(): number {
    return this.main().getCount();
  }

  /** Removes every entry, without change events (an exactly-once restore that cannot trust the files). */
  clear(): void {
    this.root.transactionSync(() => {
      for (const db of this.databases()) db.clearSync();
    });
    this.cleared();
  }

  /** Resolves once every write so far is on disk (the runtime checkpoints after it). */
  flushed(): Promise<boolean> {
    return this.root.flushed;
  }

  flush(): void {
    // LMDB commits each write; syncing to disk is awaited through flushed() before a checkpoint.
  }

  close(): void {
    void this.root.close();
  }

  /**
   * Applies changelog records as they are (the key serde's bytes, the window, the value's bytes;
   * null deletes) in one write transaction, in order, without change events: a restore, whose
   * records came from the changelog and must not go back to it.
   */
  restoreBatch(fill: (apply: RawApply) => void): void {
    this.root.transactionSync(() => fill(this.applyRaw));
  }

  /**
   * Runs `fn` in one write transaction: the runtime processes a fetched chunk in it, so a chunk's
   * store writes commit once instead of once each (a windowed count wrote each update as its own
   * transaction, with its commit). A throw still commits what was written before it.
   */
  inWriteScope(fn: () => void): void {
    let failed = false;
    let error: unknown;
    this.root.transactionSync(() => {
      try {
        fn();
      } catch (err) {
        failed = true;
        error = err;
      }
    });
    if (failed) throw error;
  }

  /** A named database of this store's environment. */
  protected openDb(name: string): Database<Buffer, Buffer> {
    return this.root.openDB<Buffer, Buffer>({ name, ...BINARY });
  }

  /** `[u32 length][the key serde's bytes]`: the key part of the window and session layouts. */
  protected keyPartOf(key: K): Buffer {
    return keyPart(this.keySerde.serialize(key));
  }

  /** The database whose entries size() counts. */
  protected abstract main(): Database<Buffer, Buffer>;
  /** Every database clear() empties. */
  protected abstract databases(): Database<Buffer, Buffer>[];
  /** After clear(): reset what the store keeps about its contents. */
  protected cleared(): void {}
  /**
   * One changelog record, inside restoreBatch's transaction (use the *Sync writes: no nesting).
   * An arrow-function property in the subclasses, so it can be handed on unbound.
   */
  protected abstract readonly applyRaw: RawApply;
}
