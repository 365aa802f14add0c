/**
 * How the LMDB stores write changelog records they restore: at once, inside the caller's write
 * transaction (a standby copy, whose store an active task may take over at any moment), or queued
 * to lmdb-js's write thread (a restore, which awaits them before its task reads the store).
 *
 * Queued writes are the faster restore: the B-tree work of each put (half of a window store's
 * restore on the event loop) runs on LMDB's own thread while the event loop decodes the next
 * chunk, on another core. lmdb-js commits them in the order they were queued, in batches that
 * each share one promise, so `committed()` waits on one promise per batch, not per write.
 */
import type { Database } from 'lmdb';

export interface RawWrites {
  put(db: Database<Buffer, Buffer>, key: Buffer, value: Buffer): void;
  remove(db: Database<Buffer, Buffer>, key: Buffer): void;
  /** Drops a whole database (a window store's expired segment). */
  drop(db: Database<Buffer, Buffer>): void;
}

/** Writes done on the spot: in the open write transaction, or each its own. */
export const SYNC_WRITES: RawWrites = {
  put: (db, key, value) => void db.putSync(key, value),
  remove: (db, key) => void db.removeSync(key),
  drop: (db) => db.dropSync(),
};

/** Writes handed to lmdb-js's write thread, committed in order; `committed()` awaits them all. */
export class QueuedWrites implements RawWrites {
  private last: Promise<unknown> | undefined;
  private readonly batches: Promise<unknown>[] = [];

  put(db: Database<Buffer, Buffer>, key: Buffer, value: Buffer): void {
    this.track(db.put(key, value));
  }

  remove(db: Database<Buffer, Buffer>, key: Buffer): void {
    this.track(db.remove(key));
  }

  drop(db: Database<Buffer, Buffer>): void {
    this.track(db.drop());
  }

  /**
   * Resolves once every write queued here is committed (readable by the store's synchronous
   * reads); rejects with the first failure. Marked handled at once: a caller that awaits it later
   * still gets the failure, and the process does not die of an unhandled rejection meanwhile.
   */
  committed(): Promise<void> {
    const all = Promise.all(this.batches).then(() => undefined);
    all.catch(() => undefined);
    return all;
  }

  private track(batch: Promise<unknown>): void {
    if (batch === this.last) return;
    this.last = batch;
    this.batches.push(batch);
  }
}
