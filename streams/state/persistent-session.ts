/**
 * The persistent session store: LMDB, one environment per task and store, with the in-memory
 * session store's API and results. Sessions live in time segments by their end
 * (lmdb-segments.ts: one database per segment, dropped whole by retention, Kafka's segmented
 * session store), each keyed (layouts in lmdb-keys.ts)
 *
 *   [key part][end][start] → the value serde's bytes     one key's sessions by end (Kafka's layout)
 *
 * so a write is one write. findSessions(key, earliestEnd, latestStart) seeks, in each segment
 * from earliestEnd's on, to the key's first session ending at or after earliestEnd and keeps those
 * starting at or before latestStart. A store written before segments (a `sessions` database and a
 * `by-end` index) is moved into segments when it is opened. As with the other LMDB stores, writes
 * are not fsynced one by one (the changelog is the durable copy; the runtime checkpoints after
 * flushed()). The environment's plumbing and the restore batch are in lmdb-base.ts.
 */
import type { Database } from 'lmdb';
import type { Serde, Window } from '../serdes';
import { LmdbStore } from './lmdb-base';
import { decodeTime, encodeTime, prefixRange, readKeyPart, writeTime } from './lmdb-keys';
import { databaseNames, SEGMENTED_MAX_DBS, TimeSegments } from './lmdb-segments';
import type { ChangeListener, RawApply, SessionBatch, SessionPut, SessionStore, WindowEntry } from './stores';

/** The databases of the layout before segments. */
const LEGACY = ['sessions', 'by-end'] as const;

export class PersistentSessionStore<K, V>
  extends LmdbStore<K>
  implements SessionStore<K, V>, SessionBatch<K, V>
{
  readonly kind = 'session' as const;
  private readonly meta: Database<Buffer, Buffer>;
  /** The sessions, by end. */
  private readonly segments: TimeSegments;

  /** `retentionMs`: how long after its end a session is kept (the aggregation's gap + grace, or more). */
  constructor(
    name: string,
    path: string,
    keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly onChange?: ChangeListener,
    retentionMs = Infinity,
  ) {
    super(name, path, keySerde, SEGMENTED_MAX_DBS);
    this.meta = this.openDb('meta');
    this.segments = new TimeSegments(this.root, (n) => this.openDb(n), this.meta, retentionMs);
    this.migrateLegacyLayout();
  }

  findSessions(key: K, earliestEnd: number, latestStart: number): WindowEntry<K, V>[] {
    const from = Math.max(earliestEnd, this.segments.expiredBelow);
    const prefix = this.keyPartOf(key);
    const { end } = prefixRange(prefix);
    const start = Buffer.concat([prefix, encodeTime(from)]);
    const out: WindowEntry<K, V>[] = [];
    for (const { db } of this.segments.between(from, Infinity)) {
      for (const { key: k, value } of db.getRange({ start, end })) {
        const entry = this.entry(key, k, prefix.length, value);
        if (entry.window.start <= latestStart) out.push(entry);
      }
    }
    return byStart(out);
  }

  fetch(key: K): WindowEntry<K, V>[] {
    return this.findSessions(key, -Infinity, Infinity);
  }

  all(): WindowEntry<K, V>[] {
    const out: WindowEntry<K, V>[] = [];
    for (const { db } of this.segments.all()) {
      for (const { key: k, value } of db.getRange({})) {
        const { key, end } = readKeyPart(k, 0);
        if (decodeTime(k, end) < this.segments.expiredBelow) continue;
        out.push(this.entry(this.keySerde.deserialize(Buffer.from(key)), k, end, value));
      }
    }
    return byStart(out);
  }

  /** Live sessions (a count per segment; the segment that straddles the expiry bound is walked). */
  override size(): number {
    const bound = this.segments.expiredBelow;
    let n = 0;
    for (const { from, db } of this.segments.all()) {
      if (from >= bound) n += db.getCount();
      else for (const k of db.getKeys({})) if (decodeTime(k, readKeyPart(k, 0).end) >= bound) n++;
    }
    return n;
  }

  put(key: K, window: Window, value: V | null): void {
    if (value === null || value === undefined) return this.remove(key, window);
    const k = this.sessionKey(key, window);
    const bytes = this.valueSerde.serialize(value);
    this.inTransaction(() => this.segments.forWrite(window.end)?.putSync(k, bytes));
    this.onChange?.({ store: this.name, key, window, value });
  }

  remove(key: K, window: Window): void {
    const db = this.segments.at(window.end);
    if (db !== undefined) {
      const k = this.sessionKey(key, window);
      this.inTransaction(() => db.removeSync(k));
    }
    this.onChange?.({ store: this.name, key, window, value: null });
  }

  /** Many puts and removes in one LMDB transaction (the record cache's flush), then a change event each. */
  putAll(entries: readonly SessionPut<K, V>[]): void {
    this.inTransaction(() => {
      for (const { key, window, value } of entries) {
        const k = this.sessionKey(key, window);
        if (value === null || value === undefined) this.segments.at(window.end)?.removeSync(k);
        else this.segments.forWrite(window.end)?.putSync(k, this.valueSerde.serialize(value));
      }
    });
    for (const { key, window, value } of entries) {
      this.onChange?.({ store: this.name, key, window, value: value ?? null });
    }
  }

  expire(minEnd: number): void {
    if (minEnd <= this.segments.expiredBelow) return;
    this.inTransaction(() => this.segments.expire(minEnd));
  }

  override restoreBatch(fill: (apply: RawApply) => void): void {
    try {
      super.restoreBatch(fill);
    } catch (err) {
      // The transaction was aborted: segments it created are gone with it.
      this.segments.load();
      throw err;
    }
  }

  protected main(): Database<Buffer, Buffer> {
    return this.meta;
  }

  protected databases(): Database<Buffer, Buffer>[] {
    return [this.meta, ...this.segments.databases()];
  }

  protected override cleared(): void {
    this.segments.reset();
  }

  /** The session's key from the changelog's bytes: no serde, one buffer. */
  protected readonly applyRaw: RawApply = (key, windowStart, windowEnd, value) => {
    const n = key.length;
    const k = Buffer.allocUnsafe(4 + n + 16);
    k.writeUInt32BE(n, 0);
    key.copy(k, 4);
    writeTime(k, 4 + n, windowEnd);
    writeTime(k, 4 + n + 8, windowStart);
    if (value === null) this.segments.at(windowEnd)?.removeSync(k);
    else this.segments.forWrite(windowEnd)?.putSync(k, value);
  };

  /** [key part][end][start]. */
  private sessionKey(key: K, window: Window): Buffer {
    const part = this.keyPartOf(key);
    const k = Buffer.allocUnsafe(part.length + 16);
    part.copy(k, 0);
    writeTime(k, part.length, window.end);
    writeTime(k, part.length + 8, window.start);
    return k;
  }

  /** Moves a store written before segments into them: `sessions` into segments, `by-end` dropped. */
  private migrateLegacyLayout(): void {
    const names = new Set(databaseNames(this.root));
    if (!LEGACY.some((n) => names.has(n))) return;
    this.inTransaction(() => {
      for (const name of LEGACY) {
        if (!names.has(name)) continue;
        const db = this.openDb(name);
        if (name === 'sessions') {
          for (const { key, value } of db.getRange({})) {
            this.segments.forWrite(decodeTime(key, readKeyPart(key, 0).end))?.putSync(key, value);
          }
        }
        db.dropSync();
      }
    });
  }

  /** The entry of a session key whose times start at `at`. */
  private entry(key: K, k: Buffer, at: number, value: Buffer): WindowEntry<K, V> {
    return {
      key,
      window: { start: decodeTime(k, at + 8), end: decodeTime(k, at) },
      value: this.valueSerde.deserialize(value),
    };
  }
}

function byStart<K, V>(entries: WindowEntry<K, V>[]): WindowEntry<K, V>[] {
  return entries.sort((a, b) => a.window.start - b.window.start);
}
