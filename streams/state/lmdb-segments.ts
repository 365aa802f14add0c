/**
 * Time segments of an LMDB store, as Kafka Streams' segmented stores have them: one named
 * database per `intervalMs` of time (`seg-<n>` holds times from n × interval); the window store
 * segments its windows by start. Retention drops whole segments, so it needs a finite retention
 * (the session store keeps its by-end index instead: a Processor API session store has none):
 *
 * - `expire(minTime)` drops the segments that end at or before minTime and records minTime (in
 *   the store's `meta` database) as `expiredBelow`, below which the store's reads skip entries of
 *   a segment still holding some;
 * - a segment is also dropped, and writes into it skipped, once the latest time written is more
 *   than the retention past its end (Kafka's observed stream time): the processor would expire it
 *   at its next record anyway, and a restore of old entries does not rebuild segments only to
 *   drop them.
 *
 * The interval is Kafka's: half the retention, at least a minute, so 2–4 segments are live.
 * Creating and dropping segments happens inside the caller's write transaction.
 */
import type { Database, RootDatabase } from 'lmdb';
import { decodeTime, writeTime } from './lmdb-keys';
import { SYNC_WRITES, type RawWrites } from './lmdb-writes';

const MIN_INTERVAL_MS = 60_000;
/**
 * Live segments are at most retention / interval + 2 = 4; the rest is headroom, `meta`, and the
 * segments a queued restore has dropped whose drops LMDB's thread has not reached yet (at most
 * 3 per chunk, two chunks queued).
 */
export const SEGMENTED_MAX_DBS = 16;
const SEGMENT_NAME = /^seg-(-?\d+)\0?$/;
const EXPIRED_KEY = Buffer.from('expired-below');

export class TimeSegments {
  readonly intervalMs: number;
  /** Entries whose time is below this are expired: reads skip them. */
  expiredBelow = -Infinity;
  /** The latest time written (a value, not a delete) since the store was opened. */
  private observedMax = -Infinity;
  /** Live segments by number. */
  private readonly dbs = new Map<number, Database<Buffer, Buffer>>();

  constructor(
    private readonly root: RootDatabase<Buffer, Buffer>,
    private readonly openDb: (name: string) => Database<Buffer, Buffer>,
    private readonly meta: Database<Buffer, Buffer>,
    readonly retentionMs: number,
  ) {
    this.intervalMs = Math.max(Math.floor(retentionMs / 2), MIN_INTERVAL_MS);
    this.load();
  }

  /** The live segment holding `time`, if there is one. */
  at(time: number): Database<Buffer, Buffer> | undefined {
    return this.dbs.get(this.idOf(time));
  }

  /** The live segments holding times from `first` to `last`, oldest first, with their first time. */
  between(first: number, last: number): { from: number; db: Database<Buffer, Buffer> }[] {
    const [lo, hi] = [this.idOf(first), this.idOf(last)];
    return [...this.dbs]
      .filter(([id]) => id >= lo && id <= hi)
      .sort(([a], [b]) => a - b)
      .map(([id, db]) => ({ from: id * this.intervalMs, db }));
  }

  all(): { from: number; db: Database<Buffer, Buffer> }[] {
    return this.between(-Infinity, Infinity);
  }

  databases(): Database<Buffer, Buffer>[] {
    return [...this.dbs.values()];
  }

  /**
   * The segment a value at `time` goes to, created if needed; undefined when that whole segment
   * is already past retention (skip the write). Call inside a write transaction, or with the
   * queued writes of a restore (the drops of segments it passes are queued with them: a segment
   * dropped is never written again, as its times are past retention). `onCreate` is told of a
   * segment made here, empty (not one opened from the files).
   */
  forWrite(
    time: number,
    writes: RawWrites = SYNC_WRITES,
    onCreate?: (db: Database<Buffer, Buffer>) => void,
  ): Database<Buffer, Buffer> | undefined {
    if (time > this.observedMax) this.observedMax = time;
    const id = this.idOf(time);
    let db = this.dbs.get(id);
    if (db !== undefined) return db;
    const live = Math.max(this.expiredBelow, this.observedMax - this.retentionMs);
    if ((id + 1) * this.intervalMs <= live) return undefined;
    // A database of that name may be in the files still (a queued drop LMDB's thread has not
    // reached): only one made here is known to start empty.
    const existed = databaseNames(this.root).includes(`seg-${id}`);
    db = this.openDb(`seg-${id}`);
    this.dbs.set(id, db);
    this.dropBefore(live, writes);
    if (!existed) onCreate?.(db);
    return db;
  }

  /** Raises the expiry bound (kept in `meta`) and drops the segments below it; false if not raised. Call inside a write transaction. */
  expire(minTime: number): boolean {
    if (minTime <= this.expiredBelow) return false;
    this.expiredBelow = minTime;
    const bound = Buffer.allocUnsafe(8);
    writeTime(bound, 0, minTime);
    this.meta.putSync(EXPIRED_KEY, bound);
    this.dropBefore(minTime);
    return true;
  }

  /** After the store was cleared: nothing expired, nothing observed (the segments stay, empty). */
  reset(): void {
    this.expiredBelow = -Infinity;
    this.observedMax = -Infinity;
  }

  /** A time about to be written (a queued restore's latest): segments past its retention are not created. */
  observe(time: number): void {
    if (time > this.observedMax) this.observedMax = time;
  }

  /** The segments and the expiry bound in the files (on open, and after an aborted transaction). */
  load(): void {
    this.dbs.clear();
    for (const name of databaseNames(this.root)) {
      const m = SEGMENT_NAME.exec(name);
      if (m) this.dbs.set(Number(m[1]), this.openDb(`seg-${m[1]}`));
    }
    const bound = this.meta.get(EXPIRED_KEY);
    this.expiredBelow = bound === undefined ? -Infinity : decodeTime(bound, 0);
  }

  private idOf(time: number): number {
    return Math.floor(time / this.intervalMs);
  }

  private dropBefore(minTime: number, writes: RawWrites = SYNC_WRITES): void {
    for (const [id, db] of this.dbs) {
      if ((id + 1) * this.intervalMs > minTime) continue;
      writes.drop(db);
      this.dbs.delete(id);
    }
  }
}

/** Names of the named databases of an environment (LMDB lists them in its main database). */
export function databaseNames(root: RootDatabase<Buffer, Buffer>): string[] {
  return [...root.getKeys({})].map((k) => Buffer.from(k).toString('utf8').replace(/\0$/, ''));
}
