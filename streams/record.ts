/** The records that flow between processors, and the shapes user functions see. */
import type { RecordHeader } from '../services/common/records';

/** A record inside the topology: typed key and value, event time, headers. */
export interface StreamRecord<K, V> {
  key: K;
  value: V;
  /** Event time (ms since the epoch), from the timestamp extractor or the operation that made it. */
  timestamp: number;
  headers: RecordHeader[];
}

/** What a table forwards: the new value and the one it replaced (null: none / a delete). */
export interface Change<V> {
  newValue: V | null;
  oldValue: V | null;
}

/** A key-value pair returned by map/flatMap: `[key, value]`. */
export type KeyValue<K, V> = readonly [K, V];

/** Where a consumed record came from, for timestamp extractors and processors. */
export interface RecordOrigin {
  topic: string;
  partition: number;
  offset: number;
}

/** Picks a record's event time. The default uses the record's own timestamp (create or append time). */
export type TimestampExtractor = (
  record: { key: unknown; value: unknown; timestampMs: number } & RecordOrigin,
  partitionTime: number,
) => number;

export const recordTimestamp: TimestampExtractor = (record) => record.timestampMs;
