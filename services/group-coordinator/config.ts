/**
 * The group coordinator's configuration schema, loaded with services/common/config.ts's loadConfig
 * (defaults < JSON file < TIDE_* environment < flags). docs/consumer-groups.md tables it.
 */
import type { ConfigOf, ConfigSchema } from '../common/config';
import { SERVICE_CONFIG_KEYS } from '../common/service-config-keys';
import { DEFAULT_SHARD_COUNT } from '../common/cluster/coordinator-shards';
import { DEFAULT_COORDINATOR_LEASE_TTL_MS } from './shard-ownership';
import { DEFAULT_TRANSACTION_MAX_TIMEOUT_MS, DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS } from './txn/txn-state';

export const DEFAULT_COORDINATOR_PORT = 9094;
export const DEFAULT_OFFSETS_TOPIC_PARTITIONS = 16;
/** Kafka's offsets.topic.replication.factor default: an acknowledged commit survives a broker loss. */
export const DEFAULT_OFFSETS_TOPIC_REPLICATION_FACTOR = 3;
/**
 * segment.bytes of __consumer_offsets (Kafka's offsets.topic.segment.bytes): far below the broker's
 * 1 GiB default because the cleaner never touches the active segment, so a partition's commits are
 * compacted only once it has rolled.
 */
export const DEFAULT_OFFSETS_TOPIC_SEGMENT_BYTES = 104_857_600;
/** Kafka's offsets.retention.minutes (7 days) and offsets.retention.check.interval.ms (10 minutes). */
export const DEFAULT_OFFSETS_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS = 10 * 60 * 1000;
/** The broker's smallest accepted segment.bytes (services/common/cluster/topic-config.ts). */
const MIN_OFFSETS_TOPIC_SEGMENT_BYTES = 1024;

export const COORDINATOR_CONFIG_SCHEMA = {
  ...SERVICE_CONFIG_KEYS,
  coordinatorId: {
    type: 'string',
    default: '',
    doc: 'Unique id of this instance ([a-zA-Z0-9._-]); empty = the host name plus a random suffix.',
  },
  port: {
    type: 'int',
    default: DEFAULT_COORDINATOR_PORT,
    min: 0,
    max: 65535,
    doc: 'gRPC port; 0 picks a free one.',
  },
  advertisedHost: {
    type: 'string',
    default: '',
    doc: 'Host clients connect to (written into the shard keys); empty = host (127.0.0.1 when host is 0.0.0.0).',
  },
  advertisedPort: {
    type: 'int',
    default: 0,
    min: 0,
    max: 65535,
    doc: 'Port clients connect to (written into the shard keys); 0 = the bound port.',
  },
  etcdEndpoints: {
    type: 'string',
    default: 'http://127.0.0.1:2379',
    doc: 'Comma-separated etcd client URLs.',
  },
  bootstrap: {
    type: 'string',
    default: '',
    doc: 'Broker addresses (host:port, comma-separated) for the offsets topic; empty = the live brokers registered in etcd.',
  },
  leaseTtlMs: {
    type: 'int',
    default: DEFAULT_COORDINATOR_LEASE_TTL_MS,
    min: 1000,
    doc: "TTL of the instance's lease: its shards move this long after it stops answering etcd.",
  },
  shardCount: {
    type: 'int',
    default: DEFAULT_SHARD_COUNT,
    min: 1,
    max: 4096,
    doc: 'Groups hash to this many shards (used by the first coordinator of a cluster; later ones read the stored count).',
  },
  offsetsTopicPartitions: {
    type: 'int',
    default: DEFAULT_OFFSETS_TOPIC_PARTITIONS,
    min: 1,
    max: 4096,
    doc: 'Partitions of __consumer_offsets when a coordinator creates it (shard n uses partition n mod this).',
  },
  offsetsTopicReplicationFactor: {
    type: 'int',
    default: DEFAULT_OFFSETS_TOPIC_REPLICATION_FACTOR,
    min: 1,
    max: 16,
    doc: 'Replication factor of __consumer_offsets (Kafka offsets.topic.replication.factor; 1 in tide dev). The controller creates it only once this many brokers are registered (the coordinator waits), and grows a copy created smaller when brokers arrive.',
  },
  offsetsTopicSegmentBytes: {
    type: 'int',
    default: DEFAULT_OFFSETS_TOPIC_SEGMENT_BYTES,
    min: MIN_OFFSETS_TOPIC_SEGMENT_BYTES,
    max: 1_073_741_824,
    doc: 'segment.bytes of __consumer_offsets when a coordinator creates it: the active segment is never compacted, so smaller segments are compacted sooner (replays after a failover read less).',
  },
  transactionStatePartitions: {
    type: 'int',
    default: DEFAULT_OFFSETS_TOPIC_PARTITIONS,
    min: 1,
    max: 4096,
    doc: 'Partitions of __transaction_state when a coordinator creates it (shard n uses partition n mod this; transactional ids hash to the same shards as groups).',
  },
  transactionStateReplicationFactor: {
    type: 'int',
    default: 0,
    min: 0,
    max: 16,
    doc: 'Replication factor of __transaction_state (Kafka transaction.state.log.replication.factor); 0 = offsetsTopicReplicationFactor. Created once this many brokers are registered.',
  },
  transactionMaxTimeoutMs: {
    type: 'int',
    default: DEFAULT_TRANSACTION_MAX_TIMEOUT_MS,
    min: 1,
    max: 2_147_483_647,
    doc: 'Largest transaction timeout a producer may ask for (Kafka transaction.max.timeout.ms); a transaction open longer than its timeout (default 60000) is aborted by the coordinator.',
  },
  transactionalIdExpirationMs: {
    type: 'int',
    default: DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS,
    min: 1,
    max: 2_147_483_647,
    doc: 'A transactional id whose last transaction ended this long ago is forgotten (Kafka transactional.id.expiration.ms, 7 days): its record in __transaction_state is tombstoned, and a producer that uses the id again starts with a new producer id.',
  },
  offsetsRetentionMs: {
    type: 'int',
    default: DEFAULT_OFFSETS_RETENTION_MS,
    min: -1,
    max: Number.MAX_SAFE_INTEGER,
    doc: "Committed offsets of a group without members expire this long after the later of their commit and the moment the group's last member left (Kafka offsets.retention.minutes, 7 days); with members, only offsets of topics no member subscribes to expire, this long after their commit. A group left without offsets is deleted. -1 = never.",
  },
  offsetsRetentionCheckIntervalMs: {
    type: 'int',
    default: DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS,
    min: 1,
    max: 2_147_483_647,
    doc: 'How often expired committed offsets are looked for (Kafka offsets.retention.check.interval.ms).',
  },
  metricsPort: {
    type: 'int',
    default: -1,
    min: -1,
    max: 65535,
    doc: 'HTTP port of the Prometheus endpoint /metrics (tide_consumer_group_lag...); -1 = off, 0 = any free port.',
  },
} satisfies ConfigSchema;

export type CoordinatorConfig = ConfigOf<typeof COORDINATOR_CONFIG_SCHEMA>;
