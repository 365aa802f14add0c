/**
 * The persistent window store: LMDB, one environment per task and store (like the key-value
 * store, persistent.ts), with the in-memory window store's API and results. Two databases:
 *
 *   windows   [key part][start]  → the value serde's bytes   fetch, fetchRange: one key's windows by start
 *   by-start  [start][key part]  → (empty)                   expire: the oldest windows first, all()
 *
 * (layouts in lmdb-keys.ts). A put writes both in one transaction. Retention deletes by range:
 * expire(minStart) walks `by-start` from the beginning to minStart and deletes each window from
 * both, so the cost is the expired windows, never a scan of the store. Keys are equal when their
 * serde bytes are equal (the key serde must serialize equal keys equally). Writes are not fsynced
 * one by one: the changelog topic is the durable copy, and the runtime checkpoints only after
 * flushed(). The environment's plumbing and the restore batch are in lmdb-base.ts.
 */
import type { Database } from 'lmdb';
import type { Serde, Window } from '../serdes';
import { EMPTY, LmdbStore } from './lmdb-base';
import { decodeTime, encodeTime, justAfter, readKeyPart, writeTime } from './lmdb-keys';
import type { ChangeListener, RawApply, WindowBatch, WindowEntry, WindowPut, WindowStore } from './stores';

export class PersistentWindowStore<K, V>
  extends LmdbStore<K>
  implements WindowStore<K, V>, WindowBatch<K, V>
{
  readonly kind = 'window' as const;
  private readonly windows: Database<Buffer, Buffer>;
  private readonly byStart: Database<Buffer, Buffer>;
  /** No window starts before this (a lower bound): expire() below it returns without a look. */
  private earliestStart: number;

  constructor(
    name: string,
    path: string,
    readonly windowSizeMs: number,
    readonly retentionMs: number,
    keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly onChange?: ChangeListener,
  ) {
    super(name, path, keySerde);
    this.windows = this.openDb('windows');
    this.byStart = this.openDb('by-start');
    const [first] = this.byStart.getKeys({ limit: 1 });
    this.earliestStart = first === undefined ? Infinity : decodeTime(first, 0);
  }

  fetch(key: K, windowStart: number): V | null {
    const bytes = this.windows.get(Buffer.concat([this.keyPartOf(key), encodeTime(windowStart)]));
    return bytes === undefined ? null : this.valueSerde.deserialize(bytes);
  }

  fetchRange(key: K, fromStart: number, toStart: number): WindowEntry<K, V>[] {
    if (fromStart > toStart) return [];
    const prefix = this.keyPartOf(key);
    const out: WindowEntry<K, V>[] = [];
    for (const { key: k, value } of this.windows.getRange({
      start: Buffer.concat([prefix, encodeTime(fromStart)]),
      end: justAfter(Buffer.concat([prefix, encodeTime(toStart)])),
    })) {
      out.push(this.entry(key, decodeTime(k, prefix.length), value));
    }
    return out;
  }

  all(): WindowEntry<K, V>[] {
    const out: WindowEntry<K, V>[] = [];
    for (const k of this.byStart.getKeys({})) {
      const start = decodeTime(k, 0);
      const { key } = readKeyPart(k, 8);
      const value = this.windows.get(Buffer.concat([k.subarray(8), k.subarray(0, 8)]));
      if (value !== undefined) out.push(this.entry(this.keySerde.deserialize(key), start, value));
    }
    return out;
  }

  put(key: K, windowStart: number, value: V | null): void {
    const part = this.keyPartOf(key);
    const time = encodeTime(windowStart);
    const primary = Buffer.concat([part, time]);
    const index = Buffer.concat([time, part]);
    if (value === null || value === undefined) {
      this.root.transactionSync(() => {
        this.windows.removeSync(primary);
        this.byStart.removeSync(index);
      });
    } else {
      const bytes = this.valueSerde.serialize(value);
      this.root.transactionSync(() => {
        this.windows.putSync(primary, bytes);
        this.byStart.putSync(index, EMPTY);
      });
      if (windowStart < this.earliestStart) this.earliestStart = windowStart;
    }
    const window: Window = { start: windowStart, end: windowStart + this.windowSizeMs };
    this.onChange?.({ store: this.name, key, window, value: value ?? null });
  }

  /** Many window writes in one LMDB transaction (the record cache's flush), then a change event each. */
  putAll(entries: readonly WindowPut<K, V>[]): void {
    this.root.transactionSync(() => {
      for (const { key, windowStart, value } of entries) {
        const part = this.keyPartOf(key);
        const time = encodeTime(windowStart);
        const primary = Buffer.concat([part, time]);
        const index = Buffer.concat([time, part]);
        if (value === null || value === undefined) {
          this.windows.removeSync(primary);
          this.byStart.removeSync(index);
        } else {
          this.windows.putSync(primary, this.valueSerde.serialize(value));
          this.byStart.putSync(index, EMPTY);
          if (windowStart < this.earliestStart) this.earliestStart = windowStart;
        }
      }
    });
    for (const { key, windowStart, value } of entries) {
      const window: Window = { start: windowStart, end: windowStart + this.windowSizeMs };
      this.onChange?.({ store: this.name, key, window, value: value ?? null });
    }
  }

  expire(minStart: number): void {
    if (minStart <= this.earliestStart) return;
    const doomed = [...this.byStart.getKeys({ end: encodeTime(minStart) })];
    if (doomed.length > 0) {
      this.root.transactionSync(() => {
        for (const k of doomed) {
          this.byStart.removeSync(k);
          this.windows.removeSync(Buffer.concat([k.subarray(8), k.subarray(0, 8)]));
        }
      });
    }
    this.earliestStart = minStart;
  }

  protected main(): Database<Buffer, Buffer> {
    return this.windows;
  }

  protected databases(): Database<Buffer, Buffer>[] {
    return [this.windows, this.byStart];
  }

  protected override cleared(): void {
    this.earliestStart = Infinity;
  }

  /** Builds both keys from the changelog's bytes: no serde, one buffer each. */
  protected readonly applyRaw: RawApply = (key, windowStart, _windowEnd, value) => {
    const n = key.length;
    const primary = Buffer.allocUnsafe(4 + n + 8);
    primary.writeUInt32BE(n, 0);
    key.copy(primary, 4);
    writeTime(primary, 4 + n, windowStart);
    const index = Buffer.allocUnsafe(8 + 4 + n);
    primary.copy(index, 0, 4 + n);
    primary.copy(index, 8, 0, 4 + n);
    if (value === null) {
      this.windows.removeSync(primary);
      this.byStart.removeSync(index);
      return;
    }
    this.windows.putSync(primary, value);
    this.byStart.putSync(index, EMPTY);
    if (windowStart < this.earliestStart) this.earliestStart = windowStart;
  };

  private entry(key: K, start: number, value: Buffer): WindowEntry<K, V> {
    return {
      key,
      window: { start, end: start + this.windowSizeMs },
      value: this.valueSerde.deserialize(value),
    };
  }
}
