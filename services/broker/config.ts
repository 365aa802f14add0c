/** The broker's configuration schema; see docs/configuration.md for the table users read. */
import type { ConfigOf, ConfigSchema } from '../common/config';
import { SERVICE_CONFIG_KEYS } from '../common/service-config-keys';
import { DEFAULT_CLEANER_CONFIG, DEFAULT_INLINE_WRITE_MAX_BYTES, type CleanerConfig } from './log';
import { DEFAULT_FETCH_STREAM_LIMITS, type FetchStreamLimits } from './api/fetch';

export const DEFAULT_BROKER_PORT = 9092;
export const DEFAULT_DATA_DIR = './tide-data';
/** Largest gRPC request a broker accepts; larger ones fail with REQUEST_TOO_LARGE. */
export const DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024;
export const DEFAULT_RETENTION_CHECK_INTERVAL_MS = 5 * 60 * 1000;
/**
 * The broker's cleaner I/O limit (read + write), where Kafka's default is none. A pass is CPU-bound
 * and takes a whole core; on the 2-core machine `npm run bench -- --compaction` measured produce
 * p99 at 2.5x its idle value during an unlimited pass and 1.2-1.4x at this limit, which still
 * cleans about 12 MB of log per second. Raise it (or -1) where the cleaner has a core to itself.
 */
export const DEFAULT_CLEANER_IO_BYTES_PER_SECOND = 25_000_000;

export const BROKER_CONFIG_SCHEMA = {
  ...SERVICE_CONFIG_KEYS,
  brokerId: {
    type: 'int',
    default: 0,
    min: 0,
    max: 2 ** 31 - 1,
    doc: 'Stable id of this broker (the StatefulSet ordinal on Kubernetes).',
  },
  port: {
    type: 'int',
    default: DEFAULT_BROKER_PORT,
    min: 0,
    max: 65535,
    doc: 'gRPC port; 0 picks a free one.',
  },
  advertisedHost: {
    type: 'string',
    default: '',
    doc: 'Host clients should connect to; empty = host (or 127.0.0.1 when host is 0.0.0.0).',
  },
  advertisedPort: {
    type: 'int',
    default: 0,
    min: 0,
    max: 65535,
    doc: 'Port clients should connect to; 0 = the bound port.',
  },
  rack: { type: 'string', default: '', doc: 'Rack or zone, for rack-aware replica placement.' },
  dataDir: {
    type: 'string',
    default: DEFAULT_DATA_DIR,
    doc: 'Folder holding partition logs (one subfolder per partition).',
  },
  etcdEndpoints: {
    type: 'string',
    default: '',
    doc: 'Comma-separated etcd URLs (`tide broker`); empty for `tide dev`, which uses the embedded store.',
  },
  maxRequestBytes: {
    type: 'int',
    default: DEFAULT_MAX_REQUEST_BYTES,
    min: 1024,
    doc: 'Largest request accepted, bytes.',
  },
  fetchStreamMaxPositions: {
    type: 'int',
    default: DEFAULT_FETCH_STREAM_LIMITS.maxPositions,
    min: 1,
    doc: 'Partitions one FetchStream may name; a request naming more (or one partition twice) fails INVALID_REQUEST.',
  },
  fetchStreamBufferBytes: {
    type: 'int',
    default: DEFAULT_FETCH_STREAM_LIMITS.streamBufferBytes,
    min: 1024 * 1024,
    doc: 'Bytes one FetchStream may hold in reads and unsent responses; its partitions wait (backpressure) beyond it.',
  },
  fetchConnectionBufferBytes: {
    type: 'int',
    default: DEFAULT_FETCH_STREAM_LIMITS.connectionBufferBytes,
    min: 1024 * 1024,
    doc: 'Bytes all FetchStreams of one client connection may hold together.',
  },
  defaultReplicationFactor: {
    type: 'int',
    default: 1,
    min: 1,
    doc: 'Replication factor of topics created without one.',
  },
  readyCatchUpMaxMs: {
    type: 'int',
    default: 120_000,
    min: 0,
    doc: 'At start, the broker reports ready (tide.v1.Broker health) once the partitions it follows have it back in their ISR, or after this long.',
  },
  leaseTtlMs: {
    type: 'int',
    default: 10_000,
    min: 1000,
    doc: 'TTL of the broker registration lease: the controller declares the broker dead this long after it stops answering.',
  },
  replicaLagTimeMaxMs: {
    type: 'int',
    default: 30_000,
    min: 100,
    doc: 'A follower that has not caught up with the leader for this long leaves the ISR (Kafka replica.lag.time.max.ms).',
  },
  replicaFetchWaitMaxMs: {
    type: 'int',
    default: 500,
    min: 10,
    doc: 'How long a leader holds a follower fetch that finds no new data (Kafka replica.fetch.wait.max.ms).',
  },
  replicaStreamLossIsrShrinkMs: {
    type: 'int',
    default: 1_500,
    min: 1,
    doc: 'A follower whose replication stream to this leader broke and did not come back within this long leaves the ISRs it is in at once (never below min.insync.replicas), rather than after replicaLagTimeMaxMs or its lease.',
  },
  replicaLeaderUnreachableMs: {
    type: 'int',
    default: 4_000,
    min: 100,
    doc: 'A follower that has had no answer from its (registered) leader broker for this long reports it to the controller, which moves leadership away when most of the in-sync replicas report the same leader; keep it below leaseTtlMs.',
  },
  reassignmentThrottleBytesPerSecond: {
    type: 'int',
    default: 0,
    min: 0,
    doc: 'Rate at which this broker, as leader, sends log data to replicas a reassignment is adding and that are not in the ISR yet, bytes/s, shared by all of them; 0 = no limit. ISR members are never throttled (Kafka leader.replication.throttled.rate on the moving replicas).',
  },
  logInlineWriteMaxBytes: {
    type: 'int',
    default: DEFAULT_INLINE_WRITE_MAX_BYTES,
    min: 0,
    doc: 'Log writes to the page cache (flush.policy os or interval) up to this size are made on the event loop instead of through the libuv thread pool, saving 0.05–0.4 ms per append; after 3 of 50 in a row block over 5 ms (the kernel throttling writes) all go through the pool for 30 s. 0 = always the pool.',
  },
  diskFaultsFile: {
    type: 'string',
    default: '',
    doc: 'Testing only: a JSON file of disk faults to inject (services/broker/disk-fault-file.ts); empty = none.',
  },
  retentionCheckIntervalMs: {
    type: 'int',
    default: DEFAULT_RETENTION_CHECK_INTERVAL_MS,
    min: 100,
    doc: 'How often retention runs.',
  },
  cleanerEnabled: {
    type: 'bool',
    default: DEFAULT_CLEANER_CONFIG.enabled,
    doc: 'Run the log cleaner, which compacts topics with cleanup.policy compact (Kafka log.cleaner.enable).',
  },
  cleanerIoMaxBytesPerSecond: {
    type: 'int',
    default: DEFAULT_CLEANER_IO_BYTES_PER_SECOND,
    min: -1,
    doc: 'Read + write rate of the log cleaner, bytes/s; -1 = no limit (Kafka log.cleaner.io.max.bytes.per.second, which defaults to none). A pass takes a core while it runs; the limit keeps produce latency flat on small machines.',
  },
  cleanerDedupeBufferBytes: {
    type: 'int',
    default: DEFAULT_CLEANER_CONFIG.dedupeBufferBytes,
    min: 1024 * 1024,
    doc: 'Memory of the key map of one cleaning pass, 24 bytes per key (Kafka log.cleaner.dedupe.buffer.size).',
  },
  cleanerBackoffMs: {
    type: 'int',
    default: DEFAULT_CLEANER_CONFIG.backoffMs,
    min: 100,
    doc: 'How often the log cleaner looks for a log to clean (Kafka log.cleaner.backoff.ms).',
  },
} satisfies ConfigSchema;

export type BrokerConfig = ConfigOf<typeof BROKER_CONFIG_SCHEMA>;

/** The FetchStream bounds of a broker's configuration. */
export function fetchStreamLimitsOf(config: BrokerConfig): FetchStreamLimits {
  return {
    maxPositions: config.fetchStreamMaxPositions,
    streamBufferBytes: config.fetchStreamBufferBytes,
    connectionBufferBytes: config.fetchConnectionBufferBytes,
  };
}

/** The broker-wide log cleaner settings of a broker's configuration. */
export function cleanerConfigOf(config: BrokerConfig): Partial<CleanerConfig> {
  return {
    enabled: config.cleanerEnabled,
    ioBytesPerSecond: config.cleanerIoMaxBytesPerSecond,
    dedupeBufferBytes: config.cleanerDedupeBufferBytes,
    backoffMs: config.cleanerBackoffMs,
  };
}
