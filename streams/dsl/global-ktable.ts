/**
 * GlobalKTable<K, V>: a table every instance holds in full (all partitions of its topic), so a
 * stream can join it through any key, without co-partitioning.
 */
import type { Serde } from '../serdes';
import type { StreamSerdes } from './kstream';

export class GlobalKTable<K, V> {
  /** @internal */
  constructor(
    /** The global store holding the table. */
    readonly storeName: string,
    readonly topic: string,
    readonly serdes: { key: Serde<K>; value: Serde<V> } & StreamSerdes<K, V>,
  ) {}
}
