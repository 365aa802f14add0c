/**
 * The persistent key-value store: LMDB (the `lmdb` package), one database directory per task and
 * store. LMDB is chosen because its reads and writes are synchronous, as record processing is (a
 * record goes through the whole topology before the next); classic-level's API is asynchronous
 * and would need a write buffer in front of it. Keys are the key serde's bytes (equal keys must
 * serialize equally), values the value serde's.
 *
 * Writes are not fsynced one by one (`noSync`): as with Kafka Streams' RocksDB stores, the
 * changelog topic is the durable copy, and the runtime will record a checkpoint (the changelog
 * offset the local files contain) only after LMDB has flushed them. The environment's plumbing
 * and the restore batch are in lmdb-base.ts.
 */
import type { Database } from 'lmdb';
import type { Serde } from '../serdes';
import type { Stamped } from '../processors/common';
import { readInt64BE, writeInt64BE } from '../int64';
import { LmdbStore } from './lmdb-base';
import { KeyRangeReads, type ByteRange } from './key-range';
import type { ChangeListener, KeyValueBatch, KeyValueStore, RawApply } from './stores';

export class PersistentKeyValueStore<K, V>
  extends LmdbStore<K>
  implements KeyValueStore<K, V>, KeyValueBatch<K, V>
{
  readonly kind = 'keyValue' as const;
  private readonly reads: KeyRangeReads<K, V>;

  constructor(
    name: string,
    path: string,
    keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly onChange?: ChangeListener,
  ) {
    // The entries live in the environment's unnamed database, as before the shared base.
    super(name, path, keySerde);
    this.reads = new KeyRangeReads(name, keySerde, (range) => this.scan(range));
  }

  get(key: K): V | null {
    const bytes = this.root.get(this.keySerde.serialize(key));
    return bytes === undefined ? null : this.valueSerde.deserialize(bytes);
  }

  put(key: K, value: V | null): void {
    const k = this.keySerde.serialize(key);
    const bytes = value === null || value === undefined ? null : this.valueSerde.serialize(value);
    if (bytes === null) this.root.removeSync(k);
    else this.root.putSync(k, bytes);
    this.onChange?.({ store: this.name, key, value: value ?? null, keyBytes: k, valueBytes: bytes });
  }

  /** Many puts and deletes in one LMDB transaction (the record cache's flush), then a change event each. */
  putAll(entries: readonly (readonly [K, V | null])[]): void {
    this.inTransaction(() => {
      for (const [key, value] of entries) {
        const k = this.keySerde.serialize(key);
        if (value === null || value === undefined) this.root.removeSync(k);
        else this.root.putSync(k, this.valueSerde.serialize(value));
      }
    });
    for (const [key, value] of entries) this.onChange?.({ store: this.name, key, value: value ?? null });
  }

  delete(key: K): V | null {
    const old = this.get(key);
    this.put(key, null);
    return old;
  }

  *all(): IterableIterator<[K, V]> {
    for (const { key, value } of this.root.getRange()) {
      yield [this.keySerde.deserialize(key), this.valueSerde.deserialize(value)];
    }
  }

  range(from: K | null, to: K | null): IterableIterator<[K, V]> {
    return this.reads.range(from, to);
  }

  reverseRange(from: K | null, to: K | null): IterableIterator<[K, V]> {
    return this.reads.reverseRange(from, to);
  }

  reverseAll(): IterableIterator<[K, V]> {
    return this.reads.reverseAll();
  }

  prefixScan<P>(prefix: P, prefixSerde: Serde<P>): IterableIterator<[K, V]> {
    return this.reads.prefixScan(prefix, prefixSerde);
  }

  /** LMDB keeps keys in byte order: one cursor over the range. */
  scan(range: ByteRange): [K, V][] {
    const out: [K, V][] = [];
    const bounds = {
      ...(range.from ? { start: range.from } : {}),
      ...(range.until ? { end: range.until } : {}),
    };
    for (const { key, value } of this.root.getRange(bounds)) {
      out.push([this.keySerde.deserialize(key), this.valueSerde.deserialize(value)]);
    }
    return out;
  }

  protected main(): Database<Buffer, Buffer> {
    return this.root;
  }

  protected databases(): Database<Buffer, Buffer>[] {
    return [this.root];
  }

  /** Keys and values are the serdes' bytes, as in the changelog. */
  protected readonly applyRaw: RawApply = (key, _start, _end, value) => {
    if (value === null) this.writes.remove(this.root, key);
    else this.writes.put(this.root, key, value);
  };
}

/** Values of DSL tables and aggregations: 8-byte big-endian timestamp, then the value's bytes. */
export function stampedSerde<V>(inner: Serde<V>): Serde<Stamped<V>> {
  return {
    name: `stamped(${inner.name})`,
    serialize(v: Stamped<V>): Buffer {
      const value = inner.serialize(v.value);
      const b = Buffer.allocUnsafe(8 + value.length);
      writeInt64BE(b, 0, v.timestamp);
      value.copy(b, 8);
      return b;
    },
    deserialize(b: Buffer): Stamped<V> {
      return { timestamp: readInt64BE(b, 0), value: inner.deserialize(b.subarray(8)) };
    },
  };
}
