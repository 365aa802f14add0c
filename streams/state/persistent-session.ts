/**
 * The persistent session store: LMDB, one environment per task and store, with the in-memory
 * session store's API and results. Two databases (layouts in lmdb-keys.ts):
 *
 *   sessions  [key part][end][start]  → the value serde's bytes   one key's sessions by end (Kafka's layout)
 *   by-end    [end][key part][start]  → (empty)                   expire: the sessions that ended first
 *
 * findSessions(key, earliestEnd, latestStart) seeks to the key's first session ending at or after
 * earliestEnd and keeps those starting at or before latestStart. expire(minEnd) deletes by range:
 * it walks `by-end` up to minEnd, so it costs the expired sessions only. A write changes both
 * databases in one transaction. As with the other LMDB stores, writes are not fsynced one by one
 * (the changelog is the durable copy; the runtime checkpoints after flushed()). The environment's
 * plumbing and the restore batch are in lmdb-base.ts.
 */
import type { Database } from 'lmdb';
import type { Serde, Window } from '../serdes';
import { EMPTY, LmdbStore } from './lmdb-base';
import { decodeTime, encodeTime, keyWithTimes, prefixRange, readKeyPart } from './lmdb-keys';
import type { ChangeListener, RawApply, SessionBatch, SessionPut, SessionStore, WindowEntry } from './stores';

export class PersistentSessionStore<K, V>
  extends LmdbStore<K>
  implements SessionStore<K, V>, SessionBatch<K, V>
{
  readonly kind = 'session' as const;
  private readonly sessions: Database<Buffer, Buffer>;
  private readonly byEnd: Database<Buffer, Buffer>;
  /** No session ends before this (a lower bound): expire() below it returns without a look. */
  private earliestEnd: number;

  constructor(
    name: string,
    path: string,
    keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly onChange?: ChangeListener,
  ) {
    super(name, path, keySerde);
    this.sessions = this.openDb('sessions');
    this.byEnd = this.openDb('by-end');
    const [first] = this.byEnd.getKeys({ limit: 1 });
    this.earliestEnd = first === undefined ? Infinity : decodeTime(first, 0);
  }

  findSessions(key: K, earliestEnd: number, latestStart: number): WindowEntry<K, V>[] {
    const prefix = this.keyPartOf(key);
    const { end } = prefixRange(prefix);
    const out: WindowEntry<K, V>[] = [];
    for (const { key: k, value } of this.sessions.getRange({
      start: Buffer.concat([prefix, encodeTime(earliestEnd)]),
      end,
    })) {
      const entry = this.entry(key, k, prefix.length, value);
      if (entry.window.start <= latestStart) out.push(entry);
    }
    return byStart(out);
  }

  fetch(key: K): WindowEntry<K, V>[] {
    const prefix = this.keyPartOf(key);
    const out: WindowEntry<K, V>[] = [];
    for (const { key: k, value } of this.sessions.getRange(prefixRange(prefix))) {
      out.push(this.entry(key, k, prefix.length, value));
    }
    return byStart(out);
  }

  all(): WindowEntry<K, V>[] {
    const out: WindowEntry<K, V>[] = [];
    for (const { key: k, value } of this.sessions.getRange({})) {
      const { key, end } = readKeyPart(k, 0);
      out.push(this.entry(this.keySerde.deserialize(key), k, end, value));
    }
    return byStart(out);
  }

  put(key: K, window: Window, value: V | null): void {
    if (value === null || value === undefined) return this.remove(key, window);
    const { primary, index } = this.keysOf(key, window);
    const bytes = this.valueSerde.serialize(value);
    this.inTransaction(() => {
      this.sessions.putSync(primary, bytes);
      this.byEnd.putSync(index, EMPTY);
    });
    if (window.end < this.earliestEnd) this.earliestEnd = window.end;
    this.onChange?.({ store: this.name, key, window, value });
  }

  remove(key: K, window: Window): void {
    const { primary, index } = this.keysOf(key, window);
    this.inTransaction(() => {
      this.sessions.removeSync(primary);
      this.byEnd.removeSync(index);
    });
    this.onChange?.({ store: this.name, key, window, value: null });
  }

  /** Many puts and removes in one LMDB transaction (the record cache's flush), then a change event each. */
  putAll(entries: readonly SessionPut<K, V>[]): void {
    this.inTransaction(() => {
      for (const { key, window, value } of entries) {
        const { primary, index } = this.keysOf(key, window);
        if (value === null || value === undefined) {
          this.sessions.removeSync(primary);
          this.byEnd.removeSync(index);
        } else {
          this.sessions.putSync(primary, this.valueSerde.serialize(value));
          this.byEnd.putSync(index, EMPTY);
          if (window.end < this.earliestEnd) this.earliestEnd = window.end;
        }
      }
    });
    for (const { key, window, value } of entries) {
      this.onChange?.({ store: this.name, key, window, value: value ?? null });
    }
  }

  expire(minEnd: number): void {
    if (minEnd <= this.earliestEnd) return;
    const doomed = [...this.byEnd.getKeys({ end: encodeTime(minEnd) })];
    if (doomed.length > 0) {
      this.inTransaction(() => {
        for (const k of doomed) {
          this.byEnd.removeSync(k);
          // [end][key part][start] → [key part][end][start]
          this.sessions.removeSync(
            Buffer.concat([k.subarray(8, k.length - 8), k.subarray(0, 8), k.subarray(-8)]),
          );
        }
      });
    }
    this.earliestEnd = minEnd;
  }

  protected main(): Database<Buffer, Buffer> {
    return this.sessions;
  }

  protected databases(): Database<Buffer, Buffer>[] {
    return [this.sessions, this.byEnd];
  }

  protected override cleared(): void {
    this.earliestEnd = Infinity;
  }

  /** Builds both keys from the changelog's bytes: no serde, one buffer each. */
  protected readonly applyRaw: RawApply = (key, windowStart, windowEnd, value) => {
    const n = key.length;
    // [key part][end][start] and [end][key part][start]
    const primary = keyWithTimes(key, windowEnd, windowStart);
    const index = Buffer.allocUnsafe(8 + 4 + n + 8);
    primary.copy(index, 0, 4 + n, 4 + n + 8);
    primary.copy(index, 8, 0, 4 + n);
    primary.copy(index, 12 + n, 4 + n + 8);
    if (value === null) {
      this.writes.remove(this.sessions, primary);
      this.writes.remove(this.byEnd, index);
      return;
    }
    this.writes.put(this.sessions, primary, value);
    this.writes.put(this.byEnd, index, EMPTY);
    if (windowEnd < this.earliestEnd) this.earliestEnd = windowEnd;
  };

  private keysOf(key: K, window: Window): { primary: Buffer; index: Buffer } {
    const part = this.keyPartOf(key);
    const end = encodeTime(window.end);
    const start = encodeTime(window.start);
    return { primary: Buffer.concat([part, end, start]), index: Buffer.concat([end, part, start]) };
  }

  /** The entry of a `sessions` key whose times start at `at`. */
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
