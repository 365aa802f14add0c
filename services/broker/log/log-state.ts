/**
 * The state one partition log's parts share: its files (segments, checkpoints, producer snapshots,
 * the leader-epoch cache), its offsets, its config and the group-commit writer. SegmentedLog
 * (partition-log.ts) is the facade; the parts that change this state are the append path
 * (log-append.ts), the read-write gate (read-write-gate.ts) and retention and truncation
 * (retention-truncation.ts).
 */
import * as path from 'node:path';
import type { Clock } from '../../common/clock';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { cleanupPolicyOf, type CleanupPolicy } from './cleanup-policy';
import { validateLogConfig } from './config';
import type { EpochEntry, LogConfig } from './interface';
import {
  LEADER_EPOCH_CHECKPOINT_FILE,
  LeaderEpochCache,
  writeLeaderEpochCheckpoint,
} from './leader-epoch-cache';
import type { LoadedLog } from './log-loader';
import type { ProducerSnapshotStore } from './producer-snapshot';
import type { ProducerStateManager } from './producer-state';
import type { LogSegment } from './segment';
import type { DiskFaults, LogFailureListener } from './disk-faults';
import type { InlineWrites } from './inline-writes';
import { GroupCommitWriter, newLogIoStats, type LogIoStats } from './writer';

export type LogStatus = 'open' | 'closing' | 'closed' | 'failed';

export interface LogStateOptions {
  topic: string;
  partition: number;
  dir: string;
  config: LogConfig;
  clock: Clock;
  logger: Logger;
  loaded: LoadedLog;
  epochs: LeaderEpochCache;
  /** The epoch entries differ from the checkpoint file. */
  epochsDirty: boolean;
  /** What the checkpoint file holds as loaded (undefined: missing or invalid). */
  epochsOnDisk: readonly EpochEntry[] | undefined;
  /** Injected disk faults (tests only); see disk-faults.ts. */
  faults?: DiskFaults;
  /** When small page-cache writes go on the event loop (inline-writes.ts); absent: always the thread pool. */
  inlineWrites?: InlineWrites;
  /** Told once when this log fails and goes offline. */
  onFailure?: LogFailureListener;
}

export class PartitionLogState {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** fs calls made by the writer: group commit is visible here. */
  readonly stats: LogIoStats = newLogIoStats();
  readonly writer: GroupCommitWriter;
  readonly producers: ProducerStateManager;
  readonly snapshots: ProducerSnapshotStore;
  readonly epochs: LeaderEpochCache;
  /** The epoch entries differ from the checkpoint file (appends change them in memory only). */
  epochsDirty: boolean;
  /**
   * The entries the checkpoint file holds, as loaded or last written; undefined while unknown
   * (while a write is in flight, after writes that overlapped, or when the file was missing).
   */
  private epochsOnDisk: readonly EpochEntry[] | undefined;
  private epochWritesStarted = 0;
  private epochWritesInFlight = 0;
  status: LogStatus = 'open';
  /** Oldest first; the last is the active segment. */
  segments: LogSegment[];
  /** The log end offset: the next offset to assign. */
  nextOffset: number;
  /** The offset after the last batch in the files: reads see everything below it. */
  writtenEndOffset: number;
  startOffset: number;
  recoveryPoint: number;
  private currentConfig: LogConfig;
  private currentCleanup: CleanupPolicy;
  private readonly onFailure: LogFailureListener | undefined;

  constructor(options: LogStateOptions) {
    this.topic = options.topic;
    this.partition = options.partition;
    this.dir = options.dir;
    this.clock = options.clock;
    this.logger = options.logger;
    this.currentConfig = { ...options.config };
    this.currentCleanup = cleanupPolicyOf(this.currentConfig);
    this.epochs = options.epochs;
    this.epochsDirty = options.epochsDirty;
    this.epochsOnDisk = options.epochsOnDisk;
    this.segments = options.loaded.segments;
    this.startOffset = options.loaded.logStartOffset;
    this.recoveryPoint = options.loaded.recoveryPoint;
    this.producers = options.loaded.producers;
    this.snapshots = options.loaded.snapshots;
    this.nextOffset = this.active.nextOffset;
    this.writtenEndOffset = this.nextOffset;
    this.onFailure = options.onFailure;
    this.writer = new GroupCommitWriter({
      syncEachRound: () => this.currentConfig.flushPolicy === 'sync',
      stats: this.stats,
      faults: options.faults,
      inlineWrites: options.inlineWrites,
      target: { topic: options.topic, partition: options.partition },
      onFailure: (err) => this.fail(err, 'write failed: partition log is offline until reopened'),
    });
  }

  get config(): Readonly<LogConfig> {
    return this.currentConfig;
  }

  /** config.cleanupPolicy, parsed. */
  get cleanup(): CleanupPolicy {
    return this.currentCleanup;
  }

  /** Validates and takes a new config (throws INVALID_CONFIG, changing nothing). */
  setConfig(config: LogConfig): void {
    validateLogConfig(config);
    this.currentConfig = { ...config };
    this.currentCleanup = cleanupPolicyOf(this.currentConfig);
    for (const segment of this.segments) segment.indexIntervalBytes = config.indexIntervalBytes;
  }

  get active(): LogSegment {
    return this.segments[this.segments.length - 1];
  }

  /** Index of the last segment whose base offset is <= offset (0 if none). */
  floorSegment(offset: number, segments = this.segments): number {
    let lo = 0;
    let hi = segments.length - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (segments[mid].baseOffset <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** Writes the epoch entries if they changed (inside an exclusive section). */
  async persistEpochsNow(changed: boolean): Promise<void> {
    if (!changed && !this.epochsDirty) return;
    this.epochsDirty = false;
    await this.writeEpochCheckpoint(this.epochs.entries().map((e) => ({ ...e })));
  }

  /**
   * Writes the leader-epoch checkpoint with `entries`, unless the file is known to hold exactly
   * them already: a partition that leads again after a restart in the epoch its file names (every
   * empty partition: the load drops an epoch with no batch, as Kafka's truncateFromEnd does, and
   * the leader assigns it again) would otherwise rewrite the same bytes, an atomic replace and a
   * folder fsync per partition. The file, not a copy in memory, is what was compared, so the
   * truncation by leader epoch reads the same entries either way.
   */
  async writeEpochCheckpoint(entries: readonly EpochEntry[]): Promise<void> {
    const onDisk = this.epochsOnDisk;
    if (onDisk && sameEntries(onDisk, entries)) return;
    const write = ++this.epochWritesStarted;
    const overlapped = this.epochWritesInFlight > 0;
    this.epochWritesInFlight++;
    this.epochsOnDisk = undefined;
    try {
      await writeLeaderEpochCheckpoint(path.join(this.dir, LEADER_EPOCH_CHECKPOINT_FILE), entries);
      // Two writes at once may land in either order: the file's content is then unknown.
      if (!overlapped && write === this.epochWritesStarted) this.epochsOnDisk = entries;
    } finally {
      this.epochWritesInFlight--;
    }
  }

  /** Keeps snapshots at segment base offsets and at or above keepFrom. */
  async pruneSnapshots(keepFrom: number): Promise<void> {
    const bases = new Set(this.segments.map((s) => s.baseOffset));
    await this.snapshots.deleteWhere((offset) => offset < keepFrom && !bases.has(offset));
  }

  /** Marks the log failed: it stays offline until reopened. */
  /** Takes the log offline until reopened; the failure listener hears of the first failure only. */
  fail(err: unknown, why = 'partition log is offline until reopened'): void {
    const first = this.status !== 'failed';
    this.status = 'failed';
    this.logger.error({ err }, why);
    if (first)
      this.onFailure?.(this.topic, this.partition, err instanceof Error ? err : new Error(String(err)));
  }

  unavailable(): TideError {
    const why = this.status === 'failed' ? 'failed after a write error' : 'closed';
    return new TideError('KAFKA_STORAGE_ERROR', `partition log ${this.topic}-${this.partition} is ${why}`, {
      context: { topic: this.topic, partition: this.partition },
    });
  }
}

function sameEntries(a: readonly EpochEntry[], b: readonly EpochEntry[]): boolean {
  return (
    a.length === b.length && a.every((e, i) => e.epoch === b[i].epoch && e.startOffset === b[i].startOffset)
  );
}
