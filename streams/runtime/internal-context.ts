/**
 * What DSL processors need from a task beyond the public ProcessorContext: sending serialized
 * records to topics, the caching switch, and hooks run at commit (cache flushes). The test driver
 * and the cluster runtime drive the same StreamTask, so both provide exactly this.
 */
import type { RecordHeader } from '../../services/common/records';
import type { ProcessorContext } from '../processor';
import type { Serde } from '../serdes';

/** Picks a partition for a sink record; undefined: the default (murmur2 of the key bytes). */
export type SinkPartitioner = (key: unknown, value: unknown, partitions: number) => number | undefined;

export interface OutgoingRecord {
  topic: string;
  key: Buffer | null;
  value: Buffer | null;
  timestampMs: number;
  headers: RecordHeader[];
  /** Set when a custom partitioner chose one; otherwise the collector partitions by key. */
  partition?: number;
}

/** Where a task's sink records go: the producer in the runtime, the in-memory topics in the driver. */
export interface RecordCollector {
  partitionsOf(topic: string): number;
  send(record: OutgoingRecord): void;
}

export interface InternalProcessorContext extends ProcessorContext {
  /** Caching on: table updates are deduplicated per key until the next commit. */
  readonly caching: boolean;
  /** Runs `flush` at every commit, before offsets are committed (caches, buffers). */
  onCommit(flush: () => void): void;
  readonly collector: RecordCollector;
  /**
   * The bytes the record being processed was read with, when `key` is still its key and `serde`
   * read it: a sink writes them instead of serializing the key again.
   */
  sourceKeyBytes(key: unknown, serde: Serde<unknown>): Buffer | undefined;
}
