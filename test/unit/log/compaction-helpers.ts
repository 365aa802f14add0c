/**
 * Fixtures for compaction tests: keyed batches, a model of "latest value per key", reading a whole
 * log back as records, and a cleaner that runs passes inline (deterministic) or on the worker.
 */
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { decodeBatch, encodeBatch, iterateBatches, type RecordInput } from '../../../services/common/records';
import { CompressionCodec } from '../../../services/common/records/layout';
import {
  InlineExecutor,
  WorkerExecutor,
  type CleanExecutor,
} from '../../../services/broker/log/cleaner/executor';
import { LogCleaner, type CleanerConfig } from '../../../services/broker/log/cleaner/log-cleaner';
import type { LogConfig } from '../../../services/broker/log/interface';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { testConfig } from './helpers';

export const T0 = 1_700_000_000_000;

/** A compacted-topic config for tests: 4 KiB segments, cleaned as soon as anything is dirty. */
export function compactConfig(overrides: Partial<LogConfig> = {}): LogConfig {
  return testConfig({
    cleanupPolicy: 'compact',
    minCleanableDirtyRatio: 0,
    deleteRetentionMs: 60_000,
    ...overrides,
  });
}

export interface KV {
  key: string;
  /** null = tombstone */
  value: string | null;
}

export function keyedBatch(
  records: KV[],
  options: {
    timestampMs?: number;
    compression?: CompressionCodec;
    producerId?: number;
    baseSequence?: number;
  } = {},
): Buffer {
  const inputs: RecordInput[] = records.map((r) => ({
    key: Buffer.from(r.key),
    value: r.value === null ? null : Buffer.from(r.value),
    timestampMs: options.timestampMs ?? T0,
  }));
  return encodeBatch(inputs, {
    compression: options.compression,
    producerId: options.producerId,
    producerEpoch: options.producerId === undefined ? undefined : 0,
    baseSequence: options.baseSequence,
  });
}

export interface ReadRecord {
  offset: number;
  key: string | null;
  value: string | null;
  timestampMs: number;
}

/** Every record from the log start to the end, decoded, plus the batch headers seen. */
export async function readRecords(log: SegmentedLog, from = log.logStartOffset): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  let offset = from;
  while (offset < log.logEndOffset) {
    const { batches, nextOffset } = await log.read(offset, 1 << 20);
    if (batches.length === 0) break;
    for (const { at } of iterateBatches(batches)) {
      const { records } = decodeBatch(batches, at);
      for (const r of records) {
        if (r.offset < offset) continue;
        out.push({
          offset: r.offset,
          key: r.key === null ? null : r.key.toString(),
          value: r.value === null ? null : r.value.toString(),
          timestampMs: r.timestampMs,
        });
      }
    }
    offset = nextOffset;
  }
  return out;
}

/** The consumer's view: latest value per key, deleted keys (tombstones) absent. */
export function fold(records: Iterable<{ key: string | null; value: string | null }>): Map<string, string> {
  const m = new Map<string, string>();
  for (const r of records) {
    if (r.key === null) continue;
    if (r.value === null) m.delete(r.key);
    else m.set(r.key, r.value);
  }
  return m;
}

export function sortedEntries(m: Map<string, string>): Array<[string, string]> {
  return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** A cleaner over one log (no timer), inline unless `worker`. */
export function cleanerFor(
  logs: SegmentedLog[],
  clock: ManualClock,
  options: {
    worker?: boolean;
    executor?: CleanExecutor;
    config?: Partial<CleanerConfig>;
    maxOffset?: number;
  } = {},
): LogCleaner {
  return new LogCleaner({
    clock,
    logger: silentLogger(),
    logs: () => logs,
    maxOffsetFor: options.maxOffset === undefined ? undefined : () => options.maxOffset,
    executor: options.executor ?? (options.worker ? new WorkerExecutor() : new InlineExecutor()),
    config: options.config,
  });
}
