/** The seeded workload shared by the compaction crash test and the process it kills. */
import { encodeBatch } from '../../services/common/records';
import { CompressionCodec } from '../../services/common/records/layout';
import { DEFAULT_LOG_CONFIG } from '../../services/broker/log/config';
import type { LogConfig } from '../../services/broker/log/interface';
import { seededRandom } from '../harness/random';

export const CRASH_TOPIC = 'changelog';
export const CRASH_PARTITION = 0;
export const CRASH_T0 = 1_700_000_000_000;
export const WORKLOAD_BATCHES = 1500;
const KEYS = 120;

export function crashConfig(): LogConfig {
  return {
    ...DEFAULT_LOG_CONFIG,
    cleanupPolicy: 'compact',
    segmentBytes: 16 * 1024,
    segmentMs: -1,
    indexIntervalBytes: 512,
    flushPolicy: 'sync',
    minCleanableDirtyRatio: 0,
    deleteRetentionMs: 3_600_000,
  };
}

export interface WorkloadRecord {
  key: string;
  value: string | null;
}

function batchOf(records: WorkloadRecord[], compression: CompressionCodec): Buffer {
  return encodeBatch(
    records.map((r) => ({
      key: Buffer.from(r.key),
      value: r.value === null ? null : Buffer.from(r.value),
      timestampMs: CRASH_T0,
    })),
    { compression },
  );
}

/** The records of workload batch i (before any cleaning). */
export function workloadRecords(seed: number): WorkloadRecord[][] {
  const random = seededRandom(seed);
  return Array.from({ length: WORKLOAD_BATCHES }, (_, i) =>
    Array.from({ length: 1 + Math.floor(random() * 4) }, (_, j) => ({
      key: `key-${Math.floor(random() * KEYS)}`,
      value: random() < 0.1 ? null : `value-${i}-${j}-${'x'.repeat(Math.floor(random() * 40))}`,
    })),
  );
}

export function workload(seed: number): Buffer[] {
  return workloadRecords(seed).map((records, i) =>
    batchOf(records, i % 5 === 0 ? CompressionCodec.Gzip : CompressionCodec.None),
  );
}

export function extraRecords(seed: number, i: number): WorkloadRecord[] {
  return [{ key: `key-${(seed * 31 + i * 7) % KEYS}`, value: `extra-${i}` }];
}

/** Extra batch i, appended while the cleaner runs. */
export function extraBatch(seed: number, i: number): Buffer {
  return batchOf(extraRecords(seed, i), CompressionCodec.None);
}
