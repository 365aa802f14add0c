/**
 * Changelog records of a store: how a store write becomes a record of `<app>-<store>-changelog`
 * and back. Keys must be equal bytes for equal keys (the topic is compacted), so a store with a
 * key serde writes the serde's bytes (window and session stores add the window); stores without
 * serdes (internal join and suppress buffers) use V8's structured serialization, which is
 * deterministic for equal plain values.
 */
import { deserialize, serialize } from 'node:v8';
import { windowedKeyBytes, type Window } from '../serdes';
import type { StoreDef } from '../topology/nodes';
import type { Stamped } from '../processors/common';
import { readInt64BE } from '../int64';
import { stampedSerde } from '../state/persistent';
import type { Serde } from '../serdes';
import type { RawApply, StoreChange } from '../state/stores';

export interface DecodedChange {
  key: unknown;
  window?: Window;
  /** null: a delete. */
  value: unknown;
}

const structured: Serde<unknown> = {
  name: 'v8',
  serialize: (v) => serialize(v),
  deserialize: (b) => deserialize(b) as unknown,
};

export function changelogTopic(applicationId: string, store: string): string {
  return `${applicationId}-${store}-changelog`;
}

/** Kafka's windowstore.changelog.additional.retention.ms default: a day. */
export const DEFAULT_WINDOWED_CHANGELOG_EXTRA_RETENTION_MS = 86_400_000;

/**
 * Topic configs of a store's changelog, as Kafka Streams sets them: compacted; for window and
 * session stores also deleted by time (`compact,delete`), after the store's retention plus
 * `extraRetentionMs`, so the changelog of a windowed store does not keep every window it ever
 * had (the store drops them at retention; a restore would read them all only to drop them).
 */
export function changelogConfigs(def: StoreDef, extraRetentionMs: number): Record<string, string> {
  if (def.kind === 'keyValue' || def.retentionMs === undefined) return { 'cleanup.policy': 'compact' };
  return { 'cleanup.policy': 'compact,delete', 'retention.ms': String(def.retentionMs + extraRetentionMs) };
}

export class ChangelogCodec {
  private readonly key: Serde<unknown>;
  private readonly value: Serde<unknown>;
  private readonly windowed: boolean;

  constructor(def: StoreDef) {
    this.key = def.key ?? structured;
    const value = def.value ?? structured;
    this.value =
      def.value && def.timestamped
        ? (stampedSerde(value) as Serde<Stamped<unknown>> as Serde<unknown>)
        : value;
    this.windowed = def.kind !== 'keyValue';
  }

  encode(change: StoreChange): { key: Buffer; value: Buffer | null } {
    const key = change.keyBytes ?? this.key.serialize(change.key);
    const value = change.value === null ? null : (change.valueBytes ?? this.value.serialize(change.value));
    if (!this.windowed || !change.window) return { key, value };
    return { key: windowedKeyBytes(key, change.window), value };
  }

  /**
   * A record as bytes, for stores that keep the serdes' bytes (the LMDB stores): the key serde's
   * bytes (a view of the record), the window read from the key, the value as it is.
   */
  applyRaw(key: Buffer, value: Buffer | null, apply: RawApply): void {
    if (!this.windowed) return apply(key, 0, 0, value);
    const n = key.length - 16;
    apply(key.subarray(0, n), readInt64BE(key, n), readInt64BE(key, n + 8), value);
  }

  decode(key: Buffer, value: Buffer | null): DecodedChange {
    const decodedValue = value === null ? null : this.value.deserialize(value);
    if (!this.windowed) return { key: this.key.deserialize(key), value: decodedValue };
    const n = key.length - 16;
    return {
      key: this.key.deserialize(key.subarray(0, n)),
      window: { start: readInt64BE(key, n), end: readInt64BE(key, n + 8) },
      value: decodedValue,
    };
  }
}
