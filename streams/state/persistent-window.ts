/**
 * The persistent window store: LMDB, one environment per task and store (like the key-value
 * store, persistent.ts), with the in-memory window store's API and results. Windows live in
 * time segments by their start (lmdb-segments.ts: one database per segment, dropped whole by
 * retention, Kafka's segmented store), each keyed
 *
 *   [key part][start] → the value serde's bytes     fetch, fetchRange: one key's windows by start
 *
 * (layouts in lmdb-keys.ts), so an update is one write. The layout before segments (a `windows`
 * database and a `by-start` index, two writes per update) is moved into segments when such a
 * store is opened. Keys are equal when their serde bytes are equal. Writes are not fsynced one by
 * one: the changelog topic is the durable copy, and the runtime checkpoints only after flushed().
 * The environment's plumbing and the restore batch are in lmdb-base.ts.
 */
import type { Database } from 'lmdb';
import type { Serde, Window } from '../serdes';
import { LmdbStore } from './lmdb-base';
import { decodeTime, encodeTime, justAfter, keyWithTimes, readKeyPart, writeTime } from './lmdb-keys';
import { databaseNames, SEGMENTED_MAX_DBS, TimeSegments } from './lmdb-segments';
import { SYNC_WRITES } from './lmdb-writes';
import { ScalableBloomFilter } from './bloom';
import type { ChangeListener, RawApply, WindowBatch, WindowEntry, WindowPut, WindowStore } from './stores';

/** The databases of the layout before segments. */
const LEGACY = ['windows', 'by-start'] as const;

export class PersistentWindowStore<K, V>
  extends LmdbStore<K>
  implements WindowStore<K, V>, WindowBatch<K, V>
{
  readonly kind = 'window' as const;
  private readonly meta: Database<Buffer, Buffer>;
  /** The windows, by start. */
  private readonly segments: TimeSegments;
  /** The last primitive key and its key part: an aggregation fetches, then puts, the same key. */
  private lastKey: unknown = undefined;
  private lastPart: Buffer = Buffer.alloc(0);
  /**
   * The window keys of each segment this store created (empty) and wrote since: a fetch of a
   * window not there — an aggregation's first record of each key and window — is answered
   * without an LMDB read. Segments opened from the files have none and are always read; a
   * filter only ever says "maybe" for a key it was given, so it can send a read that finds
   * nothing, never skip one that would find something.
   */
  private readonly filters = new Map<Database<Buffer, Buffer>, ScalableBloomFilter>();
  /** Gives a segment this store just created its filter. */
  private readonly filterNew = (db: Database<Buffer, Buffer>): void => {
    for (const known of this.filters.keys()) {
      if (!this.segments.databases().includes(known)) this.filters.delete(known);
    }
    this.filters.set(db, new ScalableBloomFilter());
  };

  constructor(
    name: string,
    path: string,
    readonly windowSizeMs: number,
    readonly retentionMs: number,
    keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly onChange?: ChangeListener,
  ) {
    super(name, path, keySerde, SEGMENTED_MAX_DBS);
    this.meta = this.openDb('meta');
    this.segments = new TimeSegments(this.root, (n) => this.openDb(n), this.meta, retentionMs);
    this.migrateLegacyLayout();
  }

  get segmentIntervalMs(): number {
    return this.segments.intervalMs;
  }

  fetch(key: K, windowStart: number): V | null {
    if (windowStart < this.segments.expiredBelow) return null;
    const db = this.segments.at(windowStart);
    if (db === undefined) return null;
    const k = this.windowKey(this.keyPartOf(key), windowStart);
    const filter = this.filters.get(db);
    if (filter !== undefined && !filter.mightContain(k)) return null;
    const bytes = db.get(k);
    return bytes === undefined ? null : this.valueSerde.deserialize(bytes);
  }

  fetchRange(key: K, fromStart: number, toStart: number): WindowEntry<K, V>[] {
    const from = Math.max(fromStart, this.segments.expiredBelow);
    if (from > toStart) return [];
    const prefix = this.keyPartOf(key);
    const start = Buffer.concat([prefix, encodeTime(from)]);
    const end = justAfter(Buffer.concat([prefix, encodeTime(toStart)]));
    const out: WindowEntry<K, V>[] = [];
    for (const { db } of this.segments.between(from, toStart)) {
      for (const { key: k, value } of db.getRange({ start, end })) {
        out.push(this.entry(key, decodeTime(k, prefix.length), value));
      }
    }
    return out;
  }

  /** Every live window, by start (then by key bytes). */
  all(): WindowEntry<K, V>[] {
    const out: WindowEntry<K, V>[] = [];
    for (const { db } of this.segments.all()) {
      // Read out while iterating (a range read's buffers are not kept), then ordered by start.
      const found: { start: number; keyBytes: Buffer; entry: WindowEntry<K, V> }[] = [];
      for (const { key: k, value } of db.getRange({})) {
        const { key, end } = readKeyPart(k, 0);
        const start = decodeTime(k, end);
        if (start < this.segments.expiredBelow) continue;
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
    const bound = this.segments.expiredBelow;
    let n = 0;
    for (const { from, db } of this.segments.all()) {
      if (from >= bound) n += db.getCount();
      else for (const k of db.getKeys({})) if (decodeTime(k, readKeyPart(k, 0).end) >= bound) n++;
    }
    return n;
  }

  put(key: K, windowStart: number, value: V | null): void {
    const part = this.keyPartOf(key);
    let bytes: Buffer | null = null;
    if (value === null || value === undefined) {
      const db = this.segments.at(windowStart);
      if (db !== undefined) {
        const k = this.windowKey(part, windowStart);
        this.inTransaction(() => db.removeSync(k));
      }
    } else {
      const written = this.valueSerde.serialize(value);
      bytes = written;
      this.inTransaction(() => this.write(windowStart, this.windowKey(part, windowStart), written));
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
        if (value === null || value === undefined) this.segments.at(windowStart)?.removeSync(k);
        else this.write(windowStart, k, this.valueSerde.serialize(value));
      }
    });
    for (const { key, windowStart, value } of entries) {
      const window: Window = { start: windowStart, end: windowStart + this.windowSizeMs };
      this.onChange?.({ store: this.name, key, window, value: value ?? null });
    }
  }

  expire(minStart: number): void {
    if (minStart <= this.segments.expiredBelow) return;
    this.inTransaction(() => this.segments.expire(minStart));
  }

  override restoreBatch(fill: (apply: RawApply) => void): void {
    try {
      super.restoreBatch(fill);
    } catch (err) {
      // The transaction was aborted: segments it created are gone with it.
      this.filters.clear();
      this.segments.load();
      throw err;
    }
  }

  /**
   * The chunk is held until its latest window is known, then written: the segments that window's
   * retention leaves behind are never created. Queued drops free their database slots only when
   * LMDB's thread gets to them, so a chunk spanning many segments (a day of a sparse changelog)
   * would otherwise create one each and run out of slots. A throw in `fill` writes nothing.
   */
  override restoreQueued(fill: (apply: RawApply) => void): Promise<void> {
    const keys: Buffer[] = [];
    const starts: number[] = [];
    const values: (Buffer | null)[] = [];
    let latest = -Infinity;
    fill((key, windowStart, _windowEnd, value) => {
      keys.push(key);
      starts.push(windowStart);
      values.push(value);
      if (value !== null && windowStart > latest) latest = windowStart;
    });
    this.segments.observe(latest);
    return super.restoreQueued((apply) => {
      for (let i = 0; i < keys.length; i++) apply(keys[i]!, starts[i]!, 0, values[i]!);
    });
  }

  protected main(): Database<Buffer, Buffer> {
    return this.meta;
  }

  protected databases(): Database<Buffer, Buffer>[] {
    return [this.meta, ...this.segments.databases()];
  }

  protected override cleared(): void {
    this.filters.clear();
    this.segments.reset();
  }

  /** The window's key from the changelog's bytes: no serde, one buffer. */
  protected readonly applyRaw: RawApply = (key, windowStart, _windowEnd, value) => {
    const k = keyWithTimes(key, windowStart);
    if (value === null) {
      const db = this.segments.at(windowStart);
      if (db !== undefined) this.writes.remove(db, k);
    } else {
      const db = this.segments.forWrite(windowStart, this.writes, this.filterNew);
      if (db !== undefined) {
        this.filters.get(db)?.add(k);
        this.writes.put(db, k, value);
      }
    }
  };

  /** A window's value into its segment (inside a write transaction), its key into the segment's filter. */
  private write(windowStart: number, k: Buffer, value: Buffer): void {
    const db = this.segments.forWrite(windowStart, SYNC_WRITES, this.filterNew);
    if (db === undefined) return;
    this.filters.get(db)?.add(k);
    db.putSync(k, value);
  }

  /** The key part, remembered for the last key when it is a primitive (objects may change in place). */
  protected override keyPartOf(key: K): Buffer {
    if (key === this.lastKey && (typeof key === 'string' || typeof key === 'number')) return this.lastPart;
    const part = super.keyPartOf(key);
    this.lastKey = key;
    this.lastPart = part;
    return part;
  }

  private windowKey(part: Buffer, start: number): Buffer {
    const k = Buffer.allocUnsafe(part.length + 8);
    part.copy(k, 0);
    writeTime(k, part.length, start);
    return k;
  }

  /** Moves a store written before segments into them: `windows` into segments, `by-start` dropped. */
  private migrateLegacyLayout(): void {
    const names = new Set(databaseNames(this.root));
    if (!LEGACY.some((n) => names.has(n))) return;
    this.inTransaction(() => {
      for (const name of LEGACY) {
        if (!names.has(name)) continue;
        const db = this.openDb(name);
        if (name === 'windows') {
          for (const { key, value } of db.getRange({})) {
            this.segments.forWrite(decodeTime(key, readKeyPart(key, 0).end))?.putSync(key, value);
          }
        }
        db.dropSync();
      }
    });
  }

  private entry(key: K, start: number, value: Buffer): WindowEntry<K, V> {
    return {
      key,
      window: { start, end: start + this.windowSizeMs },
      value: this.valueSerde.deserialize(value),
    };
  }
}
