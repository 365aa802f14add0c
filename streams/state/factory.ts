/**
 * Which store a StoreDef gets, for the cluster runtime and the test driver alike: with a directory
 * and both serdes, the persistent (LMDB) store of its kind — key-value, window or session — kept
 * in that directory; otherwise the in-memory one. DSL tables and aggregations keep each value with
 * its timestamp, written by stampedSerde. Stores without serdes (join and suppress buffers built
 * by the DSL) stay in memory.
 */
import type { StoreDef } from '../topology/nodes';
import { InMemoryKeyValueStore, InMemorySessionStore, InMemoryWindowStore } from './memory';
import { PersistentKeyValueStore, stampedSerde } from './persistent';
import { PersistentSessionStore } from './persistent-session';
import { PersistentWindowStore } from './persistent-window';
import { CachingKeyValueStore } from './caching-key-value';
import { CachingSessionStore } from './caching-session';
import { CachingWindowStore } from './caching-window';
import type { RecordCache } from './record-cache';
import type { ChangeListener, KeyValueStore, SessionStore, StateStore, WindowStore } from './stores';

/** A store on disk: the runtime checkpoints it after flushed() and may have to clear() it. */
export interface PersistentStore extends StateStore {
  readonly persistent: true;
  /** Resolves once every write so far is on disk. */
  flushed(): Promise<boolean>;
  /** Removes every entry (without change events). */
  clear(): void;
}

export function isPersistentStore(store: StateStore): store is PersistentStore {
  return store.persistent && 'flushed' in store && 'clear' in store;
}

/** `dir`: where this store's files live (`<stateDir>/<task>/<store>`); undefined: in memory. */
export function createStateStore(
  def: StoreDef,
  dir: string | undefined,
  onChange?: ChangeListener,
): StateStore {
  const onDisk = dir !== undefined && def.key !== undefined && def.value !== undefined;
  const key = def.key!;
  const value = def.value && def.timestamped ? (stampedSerde(def.value) as typeof def.value) : def.value!;
  switch (def.kind) {
    case 'keyValue':
      if (onDisk) return new PersistentKeyValueStore(def.name, dir, key, value, onChange);
      return new InMemoryKeyValueStore(def.name, onChange, def.key);
    case 'window': {
      const sizeMs = def.windowSizeMs ?? 0;
      const retentionMs = def.retentionMs ?? 0;
      if (onDisk) return new PersistentWindowStore(def.name, dir, sizeMs, retentionMs, key, value, onChange);
      return new InMemoryWindowStore(def.name, sizeMs, retentionMs, onChange);
    }
    case 'session':
      if (onDisk) return new PersistentSessionStore(def.name, dir, key, value, onChange);
      return new InMemorySessionStore(def.name, onChange);
  }
}

/**
 * The record cache in front of a DSL table or aggregation store (Kafka Streams caches the DSL's
 * materialized stores; join and suppress buffers and Processor API stores stay uncached).
 * `namespace` names the store in the instance's cache (`<task>/<store>`).
 */
export function cachedStateStore(
  def: StoreDef,
  store: StateStore,
  cache: RecordCache,
  namespace: string,
): StateStore {
  if (!def.timestamped || def.global) return store;
  switch (store.kind) {
    case 'keyValue':
      return new CachingKeyValueStore(store as KeyValueStore<unknown, unknown>, cache, namespace, def.key);
    case 'window':
      return new CachingWindowStore(store as WindowStore<unknown, unknown>, cache, namespace);
    case 'session':
      return new CachingSessionStore(store as SessionStore<unknown, unknown>, cache, namespace);
  }
}
