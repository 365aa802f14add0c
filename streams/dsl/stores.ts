/** Store definitions for the Processor API (`stream.process(supplier, { name, stores })`). */
import type { Serde } from '../serdes';
import type { StoreDef } from '../topology/nodes';

function def(name: string, kind: StoreDef['kind'], key?: Serde<unknown>, value?: Serde<unknown>): StoreDef {
  return { name, kind, key, value, persistent: false, logged: true, global: false };
}

export const Stores = {
  /** A key-value store, one per task, changelogged as `<app>-<name>-changelog` by the runtime. */
  keyValue<K, V>(name: string, serdes: { key?: Serde<K>; value?: Serde<V> } = {}): StoreDef {
    return def(name, 'keyValue', serdes.key as Serde<unknown>, serdes.value as Serde<unknown>);
  },
  /** A window store of windows `windowSizeMs` long, kept `retentionMs`. */
  window<K, V>(
    name: string,
    o: { windowSizeMs: number; retentionMs: number; key?: Serde<K>; value?: Serde<V> },
  ): StoreDef {
    return {
      ...def(name, 'window', o.key as Serde<unknown>, o.value as Serde<unknown>),
      windowSizeMs: o.windowSizeMs,
      retentionMs: o.retentionMs,
    };
  },
  session<K, V>(name: string, serdes: { key?: Serde<K>; value?: Serde<V> } = {}): StoreDef {
    return def(name, 'session', serdes.key as Serde<unknown>, serdes.value as Serde<unknown>);
  },
} as const;
