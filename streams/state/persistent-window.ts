/**
 * The persistent window store: LMDB, one environment per task and store (like the key-value
 * store, persistent.ts), with the in-memory window store's API and results. Windows live in
 * time segments, as in Kafka Streams' segmented stores: one named database per segment of
 * `segmentIntervalMs` of window starts (`seg-<n>` holds starts in [n·interval, (n+1)·interval)),
 * each keyed
 *
 *   [key part][start] → the value serde's bytes     fetch, fetchRange: one key's windows by start
 *
 * (layouts in lmdb-keys.ts), so an update is one write. Retention drops whole segments: expire(minStart)
 * deletes the segments that end at or before minStart and records minStart (in the `meta`
 * database), below which reads skip the windows of the segment still holding some. A segment
 * is also dropped, and writes into it skipped, once the latest window start written is more
 * than the retention past its end (Kafka's observed stream time): the aggregation would expire
 * it at the next record anyway, and a restore of a changelog holding old windows does not
 * rebuild segments only to drop them.
 *
 * The interval is Kafka's: half the retention, at least a minute, so 2–3 segments are live.
 * The layout before segments (a `windows` database and a `by-start` index, two writes per
 * update) is moved into segments when such a store is opened. Keys are equal when their serde
 * bytes are equal. Writes are not fsynced one by one: the changelog topic is the durable copy,
 * and the runtime checkpoints only after flushed(). The environment's plumbing and the restore
 * batch are in lmdb-base.ts.
 */
import type { Database } from 'lmdb';
import type { Serde, Window } from '../serdes';
import { LmdbStore } from './lmdb-base';
import { decodeTime, encodeTime, justAfter, readKeyPart, writeTime } from './lmdb-keys';
import type { ChangeListener, RawApply, WindowBatch, WindowEntry, WindowPut, WindowStore } from './stores';

const MIN_SEGMENT_INTERVAL_MS = 60_000;
/** Live segments are at most retention / interval + 2 = 4; the rest is headroom (and `meta`). */
const MAX_DBS = 16;
const SEGMENT_NAME = /^seg-(-?\d+)\0?$/;
const EXPIRED_KEY = Buffer.from('expired-below');
/** The databases of the layout before segments. */
const LEGACY = ['windows', 'by-start'] as const;

export class PersistentWindowStore<K, V>
  extends LmdbStore<K>
  implements WindowStore<K, V>, WindowBatch<K, V>
{
  readonly kind = 'window' as const;
  readonly segmentIntervalMs: number;
  private readonly meta: Database<Buffer, Buffer>;
  /** Live segments by number. */
  private readonly segments = new Map<number, Database<Buffer, Buffer>>();
  /** Windows starting before this are expired: reads skip them (persisted in `meta`). */
  private expiredBelow = -Infinity;
  /** The latest start of a window written (a value, not a delete) since this store was opened. */
  private observedMaxStart = -Infinity;
  /** The last primitive key and its key part: an aggregation fetches, then puts, the same key. */
  private lastKey: unknown = undefined;
  private lastPart: Buffer = Buffer.alloc(0);

  constructor(
    name: string,
    path: string,
    readonly windowSizeMs: number,
    readonly retentionMs: number,
    keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly onChange?: ChangeListener,
  ) {
    super(name, path, keySerde, MAX_DBS);
    this.segmentIntervalMs = Math.max(Math.floor(retentionMs / 2), MIN_SEGMENT_INTERVAL_MS);
    this.meta = this.openDb('meta');
    this.loadSegments();
    this.migrateLegacyLayout();
  }

  fetch(key: K, windowStart: number): V | null {
    if (windowStart < this.expiredBelow) return null;
    const db = this.segments.get(this.segmentOf(windowStart));
    if (db === undefined) return null;
    const bytes = db.get(this.windowKey(this.keyPartOf(key), windowStart));
    return bytes === undefined ? null : this.valueSerde.deserialize(bytes);
  }

  fetchRange(key: K, fromStart: number, toStart: number): WindowEntry<K, V>[] {
    const from = Math.max(fromStart, this.expiredBelow);
    if (from > toStart) return [];
    const prefix = this.keyPartOf(key);
    const start = Buffer.concat([prefix, encodeTime(from)]);
    const end = justAfter(Buffer.concat([prefix, encodeTime(toStart)]));
    const out: WindowEntry<K, V>[] = [];
    for (const id of this.segmentIds(this.segmentOf(from), this.segmentOf(toStart))) {
      for (const { key: k, value } of this.segments.get(id)!.getRange({ start, end })) {
        out.push(this.entry(key, decodeTime(k, prefix.length), value));
      }
    }
    return out;
  }

  /** Every live window, by start (then by key bytes). */
  all(): WindowEntry<K, V>[] {
    const out: WindowEntry<K, V>[] = [];
    for (const id of this.segmentIds(-Infinity, Infinity)) {
      // Read out while iterating (a range read's buffers are not kept), then ordered by start.
      const found: { start: number; keyBytes: Buffer; entry: WindowEntry<K, V> }[] = [];
      for (const { key: k, value } of this.segments.get(id)!.getRange({})) {
        const { key, end } = readKeyPart(k, 0);
        const start = decodeTime(k, end);
        if (start < this.expiredBelow) continue;
        const keyBytes = Buffer.from(key);
        found.push({ start, keyBytes, entry: this.entry(this.keySerde.deserialize(keyBytes), start, value) });
      }
      found.sort((a, b) => a.start - b.start || Buffer.compare(a.keyBytes, b.keyBytes));
      for (const f of found) out.push(f.entry);
    }
    return out;
  }

  /** Live windows (a count per segment; the segment that straddles the expiry bound is walked). */
  override size(): number {
    let n = 0;
    for (const [id, db] of this.segments) {
      if (id * this.segmentIntervalMs >= this.expiredBelow) {
        n += db.getCount();
        continue;
      }
      for (const k of db.getKeys({})) if (decodeTime(k, readKeyPart(k, 0).end) >= this.expiredBelow) n++;
    }
    return n;
  }

  put(key: K, windowStart: number, value: V | null): void {
    const part = this.keyPartOf(key);
    let bytes: Buffer | null = null;
    if (value === null || value === undefined) {
      const db = this.segments.get(this.segmentOf(windowStart));
      if (db !== undefined) {
        const k = this.windowKey(part, windowStart);
        this.inTransaction(() => db.removeSync(k));
      }
    } else {
      const written = this.valueSerde.serialize(value);
      bytes = written;
      this.inTransaction(() =>
        this.segmentToWrite(windowStart)?.putSync(this.windowKey(part, windowStart), written),
      );
    }
    const window: Window = { start: windowStart, end: windowStart + this.windowSizeMs };
    this.onChange?.({
      store: this.name,
      key,
      window,
      value: value ?? null,
      keyBytes: part.subarray(4),
      valueBytes: bytes,
    });
  }

  /** Many window writes in one LMDB transaction (the record cache's flush), then a change event each. */
  putAll(entries: readonly WindowPut<K, V>[]): void {
    this.inTransaction(() => {
      for (const { key, windowStart, value } of entries) {
        const k = this.windowKey(this.keyPartOf(key), windowStart);
        if (value === null || value === undefined)
          this.segments.get(this.segmentOf(windowStart))?.removeSync(k);
        else this.segmentToWrite(windowStart)?.putSync(k, this.valueSerde.serialize(value));
      }
    });
    for (const { key, windowStart, value } of entries) {
      const window: Window = { start: windowStart, end: windowStart + this.windowSizeMs };
      this.onChange?.({ store: this.name, key, window, value: value ?? null });
    }
  }

  expire(minStart: number): void {
    if (minStart <= this.expiredBelow) return;
    this.expiredBelow = minStart;
    const bound = Buffer.allocUnsafe(8);
    writeTime(bound, 0, minStart);
    this.inTransaction(() => {
      this.meta.putSync(EXPIRED_KEY, bound);
      this.dropSegmentsBefore(minStart);
    });
  }

  override restoreBatch(fill: (apply: RawApply) => void): void {
    try {
      super.restoreBatch(fill);
    } catch (err) {
      // The transaction was aborted: segments it created are gone with it.
      this.loadSegments();
      throw err;
    }
  }

  protected main(): Database<Buffer, Buffer> {
    return this.meta;
  }

  protected databases(): Database<Buffer, Buffer>[] {
    return [this.meta, ...this.segments.values()];
  }

  protected override cleared(): void {
    this.expiredBelow = -Infinity;
    this.observedMaxStart = -Infinity;
  }

  /** The window's key from the changelog's bytes: no serde, one buffer. */
  protected readonly applyRaw: RawApply = (key, windowStart, _windowEnd, value) => {
    const n = key.length;
    const k = Buffer.allocUnsafe(4 + n + 8);
    k.writeUInt32BE(n, 0);
    key.copy(k, 4);
    writeTime(k, 4 + n, windowStart);
    if (value === null) this.segments.get(this.segmentOf(windowStart))?.removeSync(k);
    else this.segmentToWrite(windowStart)?.putSync(k, value);
  };

  /** The key part, remembered for the last key when it is a primitive (objects may change in place). */
  protected override keyPartOf(key: K): Buffer {
    if (key === this.lastKey && (typeof key === 'string' || typeof key === 'number')) return this.lastPart;
    const part = super.keyPartOf(key);
    this.lastKey = key;
    this.lastPart = part;
    return part;
  }

  private segmentOf(start: number): number {
    return Math.floor(start / this.segmentIntervalMs);
  }

  /** Numbers of the live segments from `first` to `last`, ascending. */
  private segmentIds(first: number, last: number): number[] {
    return [...this.segments.keys()].filter((id) => id >= first && id <= last).sort((a, b) => a - b);
  }

  private windowKey(part: Buffer, start: number): Buffer {
    const k = Buffer.allocUnsafe(part.length + 8);
    part.copy(k, 0);
    writeTime(k, part.length, start);
    return k;
  }

  /** Windows starting before this can be dropped: expired, or past the retention of the latest write. */
  private liveFrom(): number {
    return Math.max(this.expiredBelow, this.observedMaxStart - this.retentionMs);
  }

  /**
   * The segment a value for a window starting at `start` goes to, created if needed; undefined
   * when that whole segment is already past retention (the write is skipped). Call inside a
   * write transaction.
   */
  private segmentToWrite(start: number): Database<Buffer, Buffer> | undefined {
    if (start > this.observedMaxStart) this.observedMaxStart = start;
    const id = this.segmentOf(start);
    let db = this.segments.get(id);
    if (db !== undefined) return db;
    const live = this.liveFrom();
    if ((id + 1) * this.segmentIntervalMs <= live) return undefined;
    db = this.openDb(`seg-${id}`);
    this.segments.set(id, db);
    this.dropSegmentsBefore(live);
    return db;
  }

  /** Drops the segments that end at or before `minStart`. Call inside a write transaction. */
  private dropSegmentsBefore(minStart: number): void {
    for (const [id, db] of this.segments) {
      if ((id + 1) * this.segmentIntervalMs > minStart) continue;
      db.dropSync();
      this.segments.delete(id);
    }
  }

  /** The segments and the expiry bound in the files. */
  private loadSegments(): void {
    this.segments.clear();
    for (const name of this.databaseNames()) {
      const m = SEGMENT_NAME.exec(name);
      if (m) this.segments.set(Number(m[1]), this.openDb(`seg-${m[1]}`));
    }
    const bound = this.meta.get(EXPIRED_KEY);
    this.expiredBelow = bound === undefined ? -Infinity : decodeTime(bound, 0);
  }

  /** Moves a store written before segments into them: `windows` into segments, `by-start` dropped. */
  private migrateLegacyLayout(): void {
    const names = new Set(this.databaseNames());
    if (!LEGACY.some((n) => names.has(n))) return;
    this.inTransaction(() => {
      for (const name of LEGACY) {
        if (!names.has(name)) continue;
        const db = this.openDb(name);
        if (name === 'windows') {
          for (const { key, value } of db.getRange({})) {
            const start = decodeTime(key, readKeyPart(key, 0).end);
            this.segmentToWrite(start)?.putSync(key, value);
          }
        }
        db.dropSync();
      }
    });
  }

  /** Names of the named databases in this environment (LMDB lists them in its main database). */
  private databaseNames(): string[] {
    return [...this.root.getKeys({})].map((k) => Buffer.from(k).toString('utf8').replace(/\0$/, ''));
  }

  private entry(key: K, start: number, value: Buffer): WindowEntry<K, V> {
    return {
      key,
      window: { start, end: start + this.windowSizeMs },
      value: this.valueSerde.deserialize(value),
    };
  }
}
