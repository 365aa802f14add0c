/**
 * The typed face of interactive queries (`app.queries`): keys go out through the store's key serde
 * and values come back through its value serde, wherever the key's task runs. A call made while
 * the key's task is restoring or moving fails with a retriable StreamsError of kind NOT_AVAILABLE;
 * retry it (e.g. with the client's `retry`).
 */
import type { Window } from '../../serdes';
import { StreamsError } from '../../errors';
import type { QueryRouter } from './router';

export interface QueriedWindow<V> {
  window: Window;
  value: V;
  /** -1 when the store keeps none. */
  timestampMs: number;
}

/** Options of a key lookup. */
export interface KeyQueryOptions {
  /**
   * Answer from a standby copy kept on the instance asked when the key's active task is not
   * readable there (Kafka's stale stores): during a restore or a failover the answer may lag the
   * active task's, instead of failing with NOT_AVAILABLE or being forwarded. Default false.
   */
  allowStale?: boolean;
}

export class StreamsQueries {
  constructor(private readonly router: () => QueryRouter | undefined) {}

  /** The value of `key` in key-value store `store`, or null. */
  async get<K, V>(store: string, key: K, options: KeyQueryOptions = {}): Promise<V | null> {
    const r = this.require();
    const info = r.store(store);
    const res = await r.get(store, info.key.serialize(key), false, options.allowStale ?? false);
    return res.found ? (info.value.deserialize(res.value) as V) : null;
  }

  /**
   * Every entry of key-value store `store`, gathered from every instance (unordered). With
   * `allowStale`, a task whose owner cannot answer is read from a standby copy on the instance
   * asked, when it keeps one.
   */
  async all<K, V>(store: string, options: KeyQueryOptions = {}): Promise<[K, V][]> {
    const r = this.require();
    const info = r.store(store);
    const entries = await r.all(store, false, 0, options.allowStale ?? false);
    return entries.map((e) => [info.key.deserialize(e.key) as K, info.value.deserialize(e.value) as V]);
  }

  /**
   * Entries of key-value store `store` whose keys lie between `from` and `to` (both included;
   * undefined: open), in the order of the key serde's bytes (Kafka's range order), from every
   * instance; at most `limit` (0: all), the lowest keys. A key whose bytes are empty cannot bound
   * the range from above (an empty bound is open).
   */
  async range<K, V>(
    store: string,
    from: K | undefined,
    to: K | undefined,
    options: KeyQueryOptions & { limit?: number } = {},
  ): Promise<[K, V][]> {
    const r = this.require();
    const info = r.store(store);
    const bound = (k: K | undefined) => (k === undefined ? Buffer.alloc(0) : info.key.serialize(k));
    const entries = await r.range(
      store,
      bound(from),
      bound(to),
      false,
      options.limit ?? 0,
      options.allowStale ?? false,
    );
    return entries.map((e) => [info.key.deserialize(e.key) as K, info.value.deserialize(e.value) as V]);
  }

  /**
   * Windows of `key` in a window store starting in [fromMs, toMs] (by start), or sessions of `key`
   * in a session store overlapping [fromMs, toMs].
   */
  async windows<K, V>(
    store: string,
    key: K,
    fromMs: number,
    toMs: number,
    options: KeyQueryOptions = {},
  ): Promise<QueriedWindow<V>[]> {
    const r = this.require();
    const info = r.store(store);
    const res = await r.windows(
      store,
      info.key.serialize(key),
      fromMs,
      toMs,
      false,
      options.allowStale ?? false,
    );
    return res.windows.map((w) => ({
      window: { start: w.startMs, end: w.endMs },
      value: info.value.deserialize(w.value) as V,
      timestampMs: w.timestampMs,
    }));
  }

  private require(): QueryRouter {
    const r = this.router();
    if (!r) throw new StreamsError('STATE', 'queries need a started app (app.start())');
    return r;
  }
}
