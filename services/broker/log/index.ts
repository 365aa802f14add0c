/**
 * The storage engine's public API. Everything else in log/ is internal.
 *
 *   const logs = new LogManager({ dataDir, clock, logger, defaultConfig: DEFAULT_LOG_CONFIG });
 *   await logs.open();
 *   const log = await logs.getOrCreate('orders', 0);
 *   const { baseOffset } = await log.append(recordBatchBytes, { leaderEpoch: 0 });
 *   const { batches, nextOffset } = await log.read(baseOffset, 1 << 20, { maxOffset: hw });
 *
 * Formats and behaviour: docs/storage.md.
 */
export type {
  AppendOptions,
  AppendResult,
  EpochEndOffset,
  EpochEntry,
  FlushPolicy,
  LogConfig,
  OpenTransaction,
  PartitionLog,
  ReadOptions,
  ReadResult,
  RetentionOptions,
  TimestampLookup,
  TimestampType,
} from './interface';
export { DEFAULT_LOG_CONFIG, validateLogConfig } from './config';
export {
  LogManager,
  DEFAULT_FLUSH_CHECK_INTERVAL_MS,
  DEFAULT_RETENTION_CHECK_INTERVAL_MS,
  type LogManagerOptions,
  type PartitionLoadFailure,
} from './log-manager';
export { SegmentedLog, openPartitionLog, type OpenPartitionLogOptions } from './partition-log';
export {
  LogCleaner,
  DEFAULT_CLEANER_CONFIG,
  type CleanerConfig,
  type CleanerStats,
  type PassSummary,
} from './cleaner/log-cleaner';
export type { LogIoStats } from './writer';
export {
  diskError,
  type DiskFaults,
  type DiskOp,
  type DiskOpTarget,
  type LogFailureListener,
} from './disk-faults';
export { LEADER_EPOCH_CHECKPOINT_FILE, NO_EPOCH } from './leader-epoch-cache';
export {
  DEFAULT_INLINE_WRITE_MAX_BYTES,
  InlineWrites,
  type InlineWriteStats,
  type InlineWritesOptions,
} from './inline-writes';
export { headroomOf, prependInHeadroom } from './headroom';
