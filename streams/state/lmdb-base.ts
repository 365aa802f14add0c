/**
 * What the three LMDB stores (key-value, window, session) share: one LMDB environment per task
 * and store, opened with binary keys and values and without an fsync per write (the changelog is
 * the durable copy; the runtime checkpoints only after flushed()), and the plumbing around it —
 * size, clear, flushed, flush, close, the key part of a typed key — plus `restoreBatch` and
 * `restoreQueued`: changelog records applied as bytes, a whole fetched chunk in one write
 * transaction, or queued to LMDB's write thread (lmdb-writes.ts).
 *
 * Writes share transactions: the runtime processes a fetched chunk inside `inWriteScope` (one
 * transaction, one commit, for all of the chunk's writes), and a store's own multi-write
 * operations join it instead of opening a child transaction. A store write outside a scope and
 * a batch is its own transaction, and those commits were a third of the CPU of a windowed count
 * on LMDB. (The environments were opened with `useWritemap` for a while to make those commits
 * cheaper; under a write map, lmdb 3.5.6 aborts the process (`mdb_freelist_save` assertion) at
 * the commit after a database's last entry is deleted, so it is not used: the scope makes the
 * commits rare instead.) Crash safety is LMDB's copy-on-write: a transaction cut short by a
 * SIGKILL leaves the last committed tree.
 *
 * Restore is why the batch exists: a store write outside a transaction is its own LMDB write
 * transaction (commit included), which capped restores at ~50,000 records/s on the window store;
 * and the stores keep the serdes' bytes, so the changelog's bytes go in without a round trip
 * through the serdes.
 */
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Serde } from '../serdes';
import { keyPart } from './lmdb-keys';
import { QueuedWrites, SYNC_WRITES, type RawWrites } from './lmdb-writes';
import type { RawApply } from './stores';

export const EMPTY = Buffer.alloc(0);
const BINARY = { keyEncoding: 'binary', encoding: 'binary' } as const;

export abstract class LmdbStore<K> {
  readonly persistent = true as const;
  protected readonly root: RootDatabase<Buffer, Buffer>;
  /** Inside inWriteScope: writes go into its transaction. */
  private scoped = false;
  /** How applyRaw writes: on the spot, or queued during restoreQueued. */
  protected writes: RawWrites = SYNC_WRITES;

  /** `maxDbs`: named databases open at once (the window store's segments need more than LMDB's default). */
  constructor(
    readonly name: string,
    readonly path: string,
    protected readonly keySerde: Serde<K>,
    maxDbs?: number,
  ) {
    this.root = open<Buffer, Buffer>({
      path,
      ...BINARY,
      noSync: true,
      ...(maxDbs !== undefined ? { maxDbs } : {}),
    });
  }

  /** Number of entries (of the main database: indexes are not counted). */
  size(): number {
    return this.main().getCount();
  }

  /** Removes every entry, without change events (an exactly-once restore that cannot trust the files). */
  clear(): void {
    this.inTransaction(() => {
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
    this.inTransaction(() => fill(this.applyRaw));
  }

  /**
   * Like restoreBatch, with the writes queued to LMDB's write thread instead of done here: the
   * promise resolves once they are committed, and the store must not be read or written before
   * (a restore awaits it before its task processes). A throw in `fill` leaves the writes queued
   * before it to be committed: replaying the changelog from the checkpoint converges anyway.
   */
  restoreQueued(fill: (apply: RawApply) => void): Promise<void> {
    if (this.scoped) throw new Error(`store ${this.name}: a queued restore cannot run inside a write scope`);
    const queued = new QueuedWrites();
    this.writes = queued;
    try {
      fill(this.applyRaw);
    } finally {
      this.writes = SYNC_WRITES;
    }
    return queued.committed();
  }

  /**
   * Runs `fn` in one write transaction: the runtime processes a fetched chunk in it, so a chunk's
   * store writes commit once instead of once each (a windowed count wrote each update as its own
   * transaction, with its commit). A throw still commits what was written before it.
   */
  inWriteScope(fn: () => void): void {
    if (this.scoped) return fn();
    let failed = false;
    let error: unknown;
    this.scoped = true;
    try {
      this.root.transactionSync(() => {
        try {
          fn();
        } catch (err) {
          failed = true;
          error = err;
        }
      });
    } finally {
      this.scoped = false;
    }
    if (failed) throw error;
  }

  /**
   * Runs `fn` in a write transaction: the scope's, when one is open (no child transaction), else
   * its own.
   */
  protected inTransaction(fn: () => void): void {
    if (this.scoped) fn();
    else this.root.transactionSync(fn);
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
   * One changelog record, written through `this.writes` (inside restoreBatch's transaction, or
   * queued by restoreQueued). An arrow-function property in the subclasses, so it can be handed
   * on unbound.
   */
  protected abstract readonly applyRaw: RawApply;
}
