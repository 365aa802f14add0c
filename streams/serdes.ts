/**
 * Serdes: how keys and values are written to and read from topics, stores and changelogs.
 * A Serde<T> carries its type, so `b.stream<string, Order>('orders', { key: Serdes.number, ... })`
 * does not compile: the serde and the declared type must agree.
 */
import { StreamsError } from './errors';
import { readInt64BE, writeInt64BE } from './int64';

export interface Serde<T> {
  /** A short name for describe() and error messages. */
  readonly name: string;
  serialize(value: T): Buffer;
  deserialize(bytes: Buffer): T;
}

/** Key and value serdes of a stream, a table or a topic. */
export interface KeyValueSerdes<K, V> {
  key: Serde<K>;
  value: Serde<V>;
}

function serde<T>(name: string, serialize: (v: T) => Buffer, deserialize: (b: Buffer) => T): Serde<T> {
  return {
    name,
    serialize,
    deserialize(bytes: Buffer): T {
      try {
        return deserialize(bytes);
      } catch (err) {
        throw new StreamsError(
          'SERDE',
          `serde ${name} could not read ${bytes.length} bytes: ${String(err)}`,
          {
            cause: err,
          },
        );
      }
    },
  };
}

const string = serde<string>(
  'string',
  (v) => Buffer.from(v, 'utf8'),
  (b) => b.toString('utf8'),
);

/** 8-byte big-endian IEEE 754 double: every JavaScript number round-trips. */
const number = serde<number>(
  'number',
  (v) => {
    const b = Buffer.allocUnsafe(8);
    b.writeDoubleBE(v, 0);
    return b;
  },
  (b) => {
    if (b.length !== 8) throw new Error(`expected 8 bytes, got ${b.length}`);
    return b.readDoubleBE(0);
  },
);

/** 8-byte big-endian signed integer, Kafka's LongSerde layout (interoperable with Java apps). */
const long = serde<bigint>(
  'long',
  (v) => {
    const b = Buffer.allocUnsafe(8);
    b.writeBigInt64BE(v, 0);
    return b;
  },
  (b) => {
    if (b.length !== 8) throw new Error(`expected 8 bytes, got ${b.length}`);
    return b.readBigInt64BE(0);
  },
);

/** 4-byte big-endian signed integer, Kafka's IntegerSerde layout. */
const int = serde<number>(
  'int',
  (v) => {
    const b = Buffer.allocUnsafe(4);
    b.writeInt32BE(v, 0);
    return b;
  },
  (b) => {
    if (b.length !== 4) throw new Error(`expected 4 bytes, got ${b.length}`);
    return b.readInt32BE(0);
  },
);

const bytes = serde<Buffer>(
  'bytes',
  (v) => v,
  (b) => Buffer.from(b),
);

function json<T>(): Serde<T> {
  return serde<T>(
    'json',
    (v) => Buffer.from(JSON.stringify(v), 'utf8'),
    (b) => JSON.parse(b.toString('utf8')) as T,
  );
}

/** A window of a windowed key. Time windows: end exclusive; sliding and session windows: end inclusive. */
export interface Window {
  start: number;
  end: number;
}

/** The key of a windowed aggregation's table: the grouping key and its window. */
export interface Windowed<K> {
  key: K;
  window: Window;
}

/** Inner key bytes followed by the window start and end (8 bytes each, big-endian). */
function windowed<K>(inner: Serde<K>): Serde<Windowed<K>> {
  const s = serde<Windowed<K>>(
    `windowed(${inner.name})`,
    (v) => windowedKeyBytes(inner.serialize(v.key), v.window),
    (b) => {
      if (b.length < 16) throw new Error(`a windowed key has at least 16 bytes, got ${b.length}`);
      const n = b.length - 16;
      return {
        key: inner.deserialize(b.subarray(0, n)),
        window: { start: readInt64BE(b, n), end: readInt64BE(b, n + 8) },
      };
    },
  );
  windowedInners.set(s as Serde<unknown>, inner as Serde<unknown>);
  return s;
}

const windowedInners = new WeakMap<Serde<unknown>, Serde<unknown>>();

/** @internal The serde of the inner key, if `s` was made by Serdes.windowed. */
export function windowedInnerSerde(s: Serde<unknown>): Serde<unknown> | undefined {
  return windowedInners.get(s);
}

/** The layout of windowed keys (Serdes.windowed, window and session changelogs): key bytes, start, end. */
export function windowedKeyBytes(key: Buffer, window: Window): Buffer {
  const b = Buffer.allocUnsafe(key.length + 16);
  key.copy(b, 0);
  writeInt64BE(b, key.length, window.start);
  writeInt64BE(b, key.length + 8, window.end);
  return b;
}

export const Serdes = { string, number, long, int, bytes, json, windowed } as const;
