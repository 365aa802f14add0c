/**
 * Defaults and validation for LogConfig (see interface.ts for what each field means).
 */
import { TideError } from '../../common/errors';
import { cleanupPolicyOf } from './cleanup-policy';
import type { LogConfig } from './interface';

export const KIB = 1024;
export const MIB = 1024 * KIB;
export const GIB = 1024 * MIB;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Largest byte position and relative offset the index formats can hold (u32). */
export const MAX_U32 = 0xffff_ffff;

/**
 * Per-topic defaults, Kafka's where Kafka has one. The flush policy default is 'sync' (fsync per
 * group commit): the safe choice for single-replica topics; the cost is measured elsewhere
 * (bench/) and this default may change with those measurements.
 */
export const DEFAULT_LOG_CONFIG: Readonly<LogConfig> = Object.freeze({
  segmentBytes: GIB,
  segmentMs: 7 * DAY_MS,
  retentionMs: 7 * DAY_MS,
  retentionBytes: -1,
  maxMessageBytes: MIB + 12,
  indexIntervalBytes: 4 * KIB,
  flushPolicy: 'sync',
  flushIntervalMs: 1000,
  timestampType: 'CreateTime',
  cleanupPolicy: 'delete',
  deleteRetentionMs: DAY_MS,
  minCompactionLagMs: 0,
  maxCompactionLagMs: Number.MAX_SAFE_INTEGER,
  minCleanableDirtyRatio: 0.5,
});

/** Throws INVALID_CONFIG naming the first bad field. */
export function validateLogConfig(config: LogConfig): void {
  const bad = (field: string, why: string): never => {
    throw new TideError('INVALID_CONFIG', `log config ${field} ${why}`);
  };
  const int = (field: keyof LogConfig, min: number, max = Number.MAX_SAFE_INTEGER): void => {
    const value = config[field];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      bad(field, `must be an integer in [${min}, ${max}], got ${String(value)}`);
    }
  };
  int('segmentBytes', 1, MAX_U32);
  int('segmentMs', -1);
  if (config.segmentMs === 0) bad('segmentMs', 'must be -1 or positive');
  int('retentionMs', -1);
  int('retentionBytes', -1);
  int('maxMessageBytes', 61, 0x7fff_ffff);
  int('indexIntervalBytes', 0, MAX_U32);
  int('flushIntervalMs', 1);
  if (!['sync', 'interval', 'os'].includes(config.flushPolicy))
    bad('flushPolicy', `must be sync, interval or os, got ${config.flushPolicy}`);
  if (!['CreateTime', 'LogAppendTime'].includes(config.timestampType)) {
    bad('timestampType', `must be CreateTime or LogAppendTime, got ${config.timestampType}`);
  }
  cleanupPolicyOf(config);
  int('deleteRetentionMs', 0);
  int('minCompactionLagMs', 0);
  int('maxCompactionLagMs', 1);
  if (config.minCompactionLagMs > config.maxCompactionLagMs)
    bad('minCompactionLagMs', `must not exceed maxCompactionLagMs (${config.maxCompactionLagMs})`);
  const ratio = config.minCleanableDirtyRatio;
  if (typeof ratio !== 'number' || !(ratio >= 0 && ratio <= 1))
    bad('minCleanableDirtyRatio', `must be a number in [0, 1], got ${String(ratio)}`);
}
