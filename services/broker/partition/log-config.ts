/**
 * A topic's configs (Kafka's key names, services/common/cluster/topic-config.ts) as the storage
 * engine's LogConfig: the one place where the cluster's view of a topic meets the log's settings.
 */
import { effectiveTopicConfig } from '../../common/cluster/topic-config';
import type { FlushPolicy, LogConfig, TimestampType } from '../log';

/**
 * The storage engine's config for a topic: explicit values over defaults. Throws INVALID_CONFIG
 * for an invalid value of a known key; ignores keys it does not know (written by a newer version).
 */
export function toLogConfig(configs: Record<string, string>): LogConfig {
  const num = (name: string): number => Number(effectiveTopicConfig(configs, name));
  return {
    segmentBytes: num('segment.bytes'),
    segmentMs: num('segment.ms'),
    retentionMs: num('retention.ms'),
    retentionBytes: num('retention.bytes'),
    maxMessageBytes: num('max.message.bytes'),
    indexIntervalBytes: num('index.interval.bytes'),
    flushPolicy: effectiveTopicConfig(configs, 'flush.policy') as FlushPolicy,
    flushIntervalMs: num('flush.ms'),
    timestampType: effectiveTopicConfig(configs, 'message.timestamp.type') as TimestampType,
    cleanupPolicy: effectiveTopicConfig(configs, 'cleanup.policy'),
    deleteRetentionMs: num('delete.retention.ms'),
    minCompactionLagMs: num('min.compaction.lag.ms'),
    maxCompactionLagMs: num('max.compaction.lag.ms'),
    minCleanableDirtyRatio: num('min.cleanable.dirty.ratio'),
  };
}
