/**
 * Broker-level replication settings (Kafka's replica.* broker configs) with their defaults. The
 * broker's config loader maps its keys onto these; tests pass small values.
 */
import { TideError } from '../../common/errors';

/** Kafka's replica.lag.time.max.ms: a follower not caught up for this long leaves the ISR. */
export const DEFAULT_REPLICA_LAG_TIME_MAX_MS = 30_000;
/** Kafka's replica.fetch.wait.max.ms: how long the leader holds a follower fetch with no news. */
export const DEFAULT_REPLICA_FETCH_WAIT_MAX_MS = 500;
/** Bytes of record batches per replication response (at least one batch is always sent). */
export const DEFAULT_REPLICA_FETCH_MAX_BYTES = 8 * 1024 * 1024;
/** Kafka's replica.fetch.backoff.ms: pause of one partition after a partition-level fetch error. */
export const DEFAULT_REPLICA_FETCH_BACKOFF_MS = 500;
/** Largest pause between reconnects to a leader (the first is 100 ms, doubled per failure). */
export const DEFAULT_REPLICA_RECONNECT_BACKOFF_MAX_MS = 5_000;
/** A replication stream with no answer for max wait plus this long is considered dead. */
export const DEFAULT_REPLICA_RESPONSE_TIMEOUT_MS = 30_000;
/** Pause before proposing an ISR change again after AlterPartition failed. */
export const DEFAULT_ISR_PROPOSAL_RETRY_MS = 1_000;
/**
 * A follower whose every replication stream to this leader broke and stayed broken this long is
 * taken out of the ISRs it is in at once (never below min.insync.replicas), instead of after
 * replica.lag.time.max.ms or its registration lease: a dead follower must not stall acks=all.
 */
export const DEFAULT_REPLICA_STREAM_LOSS_ISR_SHRINK_MS = 1_500;
/**
 * A follower with no answer from a registered leader broker for this long reports it to the
 * controller (ReportLeaderUnreachable), which moves leadership when most of the ISR agrees.
 */
export const DEFAULT_REPLICA_LEADER_UNREACHABLE_MS = 4_000;
/** acks=all wait when the produce request gives no timeout (ProduceRequest.timeout_ms = 0). */
export const DEFAULT_PRODUCE_TIMEOUT_MS = 30_000;

export interface ReplicationSettings {
  replicaLagTimeMaxMs: number;
  replicaFetchWaitMaxMs: number;
  replicaFetchMaxBytes: number;
  replicaFetchBackoffMs: number;
  replicaReconnectBackoffMaxMs: number;
  replicaResponseTimeoutMs: number;
  isrProposalRetryMs: number;
  produceTimeoutDefaultMs: number;
  replicaStreamLossIsrShrinkMs: number;
  replicaLeaderUnreachableMs: number;
}

export const DEFAULT_REPLICATION_SETTINGS: Readonly<ReplicationSettings> = {
  replicaLagTimeMaxMs: DEFAULT_REPLICA_LAG_TIME_MAX_MS,
  replicaFetchWaitMaxMs: DEFAULT_REPLICA_FETCH_WAIT_MAX_MS,
  replicaFetchMaxBytes: DEFAULT_REPLICA_FETCH_MAX_BYTES,
  replicaFetchBackoffMs: DEFAULT_REPLICA_FETCH_BACKOFF_MS,
  replicaReconnectBackoffMaxMs: DEFAULT_REPLICA_RECONNECT_BACKOFF_MAX_MS,
  replicaResponseTimeoutMs: DEFAULT_REPLICA_RESPONSE_TIMEOUT_MS,
  isrProposalRetryMs: DEFAULT_ISR_PROPOSAL_RETRY_MS,
  produceTimeoutDefaultMs: DEFAULT_PRODUCE_TIMEOUT_MS,
  replicaStreamLossIsrShrinkMs: DEFAULT_REPLICA_STREAM_LOSS_ISR_SHRINK_MS,
  replicaLeaderUnreachableMs: DEFAULT_REPLICA_LEADER_UNREACHABLE_MS,
};

export function replicationSettings(overrides: Partial<ReplicationSettings> = {}): ReplicationSettings {
  const settings = { ...DEFAULT_REPLICATION_SETTINGS, ...overrides };
  for (const [name, value] of Object.entries(settings)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new TideError(
        'INVALID_CONFIG',
        `replication setting ${name} must be a positive integer, got ${value}`,
      );
    }
  }
  return settings;
}
