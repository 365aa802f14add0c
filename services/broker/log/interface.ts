/**
 * The storage engine's contract. `log/` knows nothing of gRPC, etcd or replication: the broker's
 * partition layer owns the high watermark and calls these methods. Everything here is per
 * partition replica, stored in one folder.
 */

/** When appended data reaches the disk. */
export type FlushPolicy =
  /** on the disk before append() resolves (an O_DSYNC write), many appends sharing one (group commit). */
  | 'sync'
  /** fdatasync every flushIntervalMs; append() resolves once the OS has the bytes. */
  | 'interval'
  /** never fsync explicitly; rely on the OS and on replication. */
  | 'os';

export type TimestampType = 'CreateTime' | 'LogAppendTime';

export interface LogConfig {
  /** Roll to a new segment when the active one reaches this size. */
  segmentBytes: number;
  /** Roll when the active segment's first batch is older than this (ms); -1 = never by age. */
  segmentMs: number;
  /** Delete segments whose newest record is older than this (ms); -1 = keep forever. */
  retentionMs: number;
  /** Delete oldest segments while the partition is larger than this (bytes); -1 = no limit. */
  retentionBytes: number;
  /** Largest record batch accepted, in bytes. */
  maxMessageBytes: number;
  /** Bytes of log between two sparse index entries. */
  indexIntervalBytes: number;
  flushPolicy: FlushPolicy;
  /** With flushPolicy 'interval': how often to fsync. */
  flushIntervalMs: number;
  /** CreateTime keeps the producer's timestamps; LogAppendTime overwrites them with the broker's. */
  timestampType: TimestampType;
  /**
   * 'delete' (retention by time/size), 'compact' (keep the latest record per key) or 'compact,delete';
   * the log parses it once (cleanup-policy.ts).
   */
  cleanupPolicy: string;
  /** Compacted logs: how long a tombstone stays readable after the cleaning that first kept it (ms). */
  deleteRetentionMs: number;
  /** Compacted logs: segments holding records newer than this are not cleaned yet (ms). */
  minCompactionLagMs: number;
  /**
   * Compacted logs: a dirty segment whose first record is older than this is cleaned whatever the
   * dirty ratio, and the active segment rolls at this age (ms; Number.MAX_SAFE_INTEGER = never).
   */
  maxCompactionLagMs: number;
  /** Compacted logs: cleaning starts when dirty bytes / (clean + dirty bytes) exceeds this (0..1). */
  minCleanableDirtyRatio: number;
}

export interface AppendOptions {
  /** Stamped into each batch's partitionLeaderEpoch. */
  leaderEpoch: number;
  /**
   * 'client' (default): producer batches, never control batches. 'coordinator': transaction
   * markers (control batches only), written for the transaction coordinator. 'group-coordinator':
   * as 'client', and transactional batches may also come without sequence numbers (baseSequence
   * -1): a consumer group coordinator's transactional offset commits in `__consumer_offsets`,
   * written under the transactional producer's id and epoch, which skip the sequence checks (as
   * Kafka's coordinator-origin appends do) but not the epoch and transaction checks.
   */
  origin?: 'client' | 'coordinator' | 'group-coordinator';
  /**
   * Called synchronously once the request's offsets are assigned and its bytes patched (base
   * offsets, leader epochs, LogAppendTime), before they are written: `batches` are then exactly the
   * bytes the log will hold for [baseOffset, endOffset) and are never changed again. A leader uses
   * it to replicate from memory while its own write and fsync run. Not called for a duplicate.
   * Must not throw.
   */
  onAssigned?: (batches: Buffer, baseOffset: number, endOffset: number) => void;
}

export interface AppendResult {
  /** First offset of the first batch appended (or of the original append, for a duplicate). */
  baseOffset: number;
  /** Last offset of the last batch. */
  lastOffset: number;
  /** The broker's time stamped into the batches when the topic uses LogAppendTime; else -1. */
  logAppendTimeMs: number;
  logStartOffset: number;
  /** True when an idempotent producer retried a batch already in the log; nothing was written. */
  duplicate: boolean;
}

export interface ReadOptions {
  /** Return no batch whose first offset is at or above this (exclusive), e.g. the high watermark. */
  maxOffset?: number;
  /**
   * 'read_committed': also return the aborted transactions that overlap the batches returned,
   * collected from the segments' aborted-transaction indexes in the same read. The caller bounds
   * maxOffset by the last stable offset.
   */
  isolation?: 'read_uncommitted' | 'read_committed';
}

/** A transaction open in one partition (its marker not appended yet). */
export interface OpenTransaction {
  producerId: number;
  epoch: number;
  firstOffset: number;
}

export interface RetentionOptions {
  /** Delete only segments that end at or below this offset (e.g. the high watermark). */
  maxOffset?: number;
}

export interface ReadResult {
  /** Whole batches as stored, back to back; the first may start before the requested offset. */
  batches: Buffer;
  /** The offset after the last batch returned (= requested offset when nothing was returned). */
  nextOffset: number;
  logStartOffset: number;
  /** With isolation 'read_committed': the aborted transactions whose records the batches may hold. */
  abortedTransactions?: AbortedTransaction[];
}

export interface TimestampLookup {
  /** First offset whose record timestamp is >= the requested time. */
  offset: number;
  /** Timestamp of the batch holding it (its max timestamp). */
  timestampMs: number;
}

/** Epoch `epoch` wrote the offsets from `startOffset` on (until the next entry's start). */
export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

/** Where a leader epoch ends: see PartitionLog.endOffsetForEpoch. */
export interface EpochEndOffset {
  epoch: number;
  /** The first offset not written in `epoch` (the next epoch's start, or the log end offset). */
  endOffset: number;
}

import type { AbortedTransaction } from '../../common/records/control';

/** One partition replica's log on disk. */
export interface PartitionLog {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  /** Offset of the first record still kept; reads below it fail with OFFSET_OUT_OF_RANGE. */
  readonly logStartOffset: number;
  /** Next offset to assign (LEO), including appends still being written. */
  readonly logEndOffset: number;
  /** Total bytes of all segments. */
  readonly sizeBytes: number;
  /**
   * Compacted logs: bytes written since the last cleaning / bytes of the segments below the active
   * one (0..1; 0 for logs that are not compacted). See docs/storage.md, Compaction.
   */
  readonly dirtyRatio?: number;

  /**
   * Checks and appends one or more RecordBatch v2 back to back. Validation happens for all of them
   * before any offset is assigned, so a request is appended whole or not at all. Offsets are
   * assigned in call order. Resolves when the bytes are written (and fsynced for 'sync').
   * Throws TideError: INVALID_RECORD, CORRUPT_MESSAGE, MESSAGE_TOO_LARGE, OUT_OF_ORDER_SEQUENCE,
   * INVALID_PRODUCER_EPOCH, KAFKA_STORAGE_ERROR.
   */
  append(batches: Buffer, options: AppendOptions): Promise<AppendResult>;

  /**
   * Reads whole batches starting with the one that holds `offset`, up to maxBytes (at least one
   * batch if any is there). Every batch returned has a valid CRC; a corrupt one fails with
   * KAFKA_STORAGE_ERROR naming the segment. Throws OFFSET_OUT_OF_RANGE outside
   * [logStartOffset, logEndOffset].
   */
  read(offset: number, maxBytes: number, options?: ReadOptions): Promise<ReadResult>;

  /**
   * The last stable offset given the high watermark: the smallest first offset of a transaction
   * that is open, or closed by a marker at or above hw; hw when there is none. read_committed
   * consumers read below it.
   */
  lastStableOffset(hw: number): number;

  /** The transactions open in this partition, oldest first. */
  openTransactions(): OpenTransaction[];

  /** The newest epoch this partition knows for the producer; undefined for an unknown producer. */
  producerEpoch(producerId: number): number | undefined;

  /** Whether the producer has a transaction open here whose batches carry `producerEpoch`. */
  hasOpenTransaction(producerId: number, producerEpoch: number): boolean;

  /** The first offset with timestamp >= timestampMs, or undefined when every record is older. */
  offsetForTimestamp(timestampMs: number): Promise<TimestampLookup | undefined>;

  /** Applies new config (retention, segment size, flush policy...) from now on. */
  updateConfig(config: LogConfig): void;

  /**
   * Deletes segments beyond retention, advancing logStartOffset. Returns bytes deleted.
   * With options.maxOffset (the high watermark), never deletes a segment that ends above it.
   */
  applyRetention(nowMs: number, options?: RetentionOptions): Promise<number>;

  /**
   * Moves the log start offset up to `offset` (Kafka's DeleteRecords on a leader; a follower
   * following its leader's log start). From then on reads below it fail with OFFSET_OUT_OF_RANGE,
   * and every segment that ends at or below it is deleted (the one holding it stays, so the start
   * may be inside a segment, as after a restart). The new start is checkpointed before the promise
   * resolves, so it survives a crash. Never moves back: an offset at or below the log start
   * changes nothing. Throws OFFSET_OUT_OF_RANGE above the log end offset, INVALID_REQUEST for a
   * negative offset. Resolves with the bytes of the segments deleted.
   */
  advanceLogStartOffset(offset: number): Promise<number>;

  /** Writes buffered data and fsyncs. */
  flush(): Promise<void>;

  /**
   * Drops every batch that holds an offset at or above `offset` (cutting at a batch boundary, so
   * the new log end may be below it) and the leader epochs that start at or after the new end.
   * For replication (truncation by leader epoch); also used by tests.
   */
  truncateTo(offset: number): Promise<void>;

  /**
   * Deletes every segment and restarts the empty log at `offset` (log start = log end = offset),
   * with no leader epochs: a follower that fell behind its leader's log start offset.
   */
  truncateFully(offset: number): Promise<void>;

  /**
   * Appends batches copied from the leader as they are: offsets and partitionLeaderEpoch already
   * set, the first starting at logEndOffset (later for a compacted log), offsets following each
   * other. Checks framing and CRC (follower-append.ts) but not max.message.bytes; updates the
   * idempotent-producer state (so it survives a leader change) and the leader epochs; group-commits
   * like append(). Throws INVALID_RECORD, CORRUPT_MESSAGE, KAFKA_STORAGE_ERROR.
   */
  appendAsFollower(batches: Buffer): Promise<AppendResult>;

  /** The newest leader epoch in the epoch cache; -1 when it is empty. */
  readonly latestEpoch: number;

  /** The leader-epoch cache entries, oldest first. */
  epochEntries(): readonly EpochEntry[];

  /**
   * Records that leader epoch `epoch` starts at `startOffset` (default: the log end offset), for a
   * replica becoming leader. Resolves once every append queued before the call is written (so the
   * log end offset is then all on file); the checkpoint is written in the background, ahead of any
   * later append. Appends also record the epochs they carry.
   */
  assignEpoch(epoch: number, startOffset?: number): Promise<void>;

  /**
   * Kafka's endOffsetForEpoch: the largest epoch <= `epoch` this log knows and the offset where it
   * ends (the start of the next epoch, or the log end offset for the newest). Undefined for -1, an
   * empty cache, or an epoch newer than every entry. When every entry is newer, `epoch` itself
   * with the first entry's start offset.
   */
  endOffsetForEpoch(epoch: number): EpochEndOffset | undefined;

  /** Flushes, writes indexes and the clean-shutdown marker, closes files. */
  close(): Promise<void>;

  /** Closes and removes the partition's folder. */
  delete(): Promise<void>;
}
