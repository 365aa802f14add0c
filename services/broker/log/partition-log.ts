/**
 * SegmentedLog: the PartitionLog implementation (contract in interface.ts). One folder, a list of
 * segments (oldest first, the last one active), a group-commit writer, idempotent-producer state.
 *
 * Append path (no await before offsets are assigned, so offsets follow call order):
 *   1. validate every batch of the request (validate.ts);
 *   2. check producer sequences/epochs for all of them (producer-state.ts); a request that is
 *      entirely a retry resolves with the original offsets once they are written;
 *      the state itself is updated batch by batch in step 3;
 *   3. for each batch: roll if needed (roll.ts), patch baseOffset and partitionLeaderEpoch in place
 *      (outside the CRC; for LogAppendTime also the timestamps + a new CRC);
 *   4. hand the request's bytes to the writer (writer.ts): one writev per group commit round, plus
 *      one fdatasync for flushPolicy 'sync'. The promise resolves after that.
 * The caller's buffer is patched in place and written as is (zero copy): it must not be reused.
 *
 * Follower appends (appendAsFollower, checks in follower-append.ts) take the same path from step 3
 * on, without patching: batches keep the offsets and leader epochs the leader gave them. Both
 * paths record new leader epochs in the epoch cache (leader-epoch-cache.ts) in memory; its
 * checkpoint is written by assignEpoch, truncation and retention, and the loader replays batch
 * headers past the checkpoint (leader-epoch-loader.ts), so the append path makes no extra fs call.
 *
 * Structural operations (truncateTo, applyRetention, close, delete) run exclusively: appends and
 * reads arriving meanwhile wait, in-flight writes and reads finish first.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Clock } from '../../common/clock';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import {
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_TIMESTAMP,
  OFFSET_MAX_TIMESTAMP,
  TIMESTAMP_TYPE_BIT,
  patchBaseOffset,
  patchPartitionLeaderEpoch,
  writeBatchCrc,
} from '../../common/records/layout';
import { writeOffsetCheckpoint } from './checkpoint';
import { validateLogConfig } from './config';
import { fsyncDir } from './fs-util';
import type {
  AppendOptions,
  AppendResult,
  LogConfig,
  PartitionLog,
  ReadOptions,
  ReadResult,
  RetentionOptions,
  TimestampLookup,
} from './interface';
import { LogLoader, restoreProducerState } from './log-loader';
import { CLEAN_SHUTDOWN_FILE, LOG_START_OFFSET_FILE, RECOVERY_POINT_FILE, partitionDirName } from './names';
import { encodeProducerSnapshot, type ProducerSnapshotStore } from './producer-snapshot';
import type { ProducerBatch, ProducerBatchInfo, ProducerStateManager } from './producer-state';
import { findByTimestamp, readSegment } from './reader';
import { planRetention } from './retention';
import { rollReason, type RollReason } from './roll';
import { LogSegment, type SegmentBatch } from './segment';
import { validateBatches, type IncomingBatch } from './validate';
import { LogCompaction, isCompacted } from './compaction';
import { validateFollowerBatches } from './follower-append';
import {
  LEADER_EPOCH_CHECKPOINT_FILE,
  LeaderEpochCache,
  writeLeaderEpochCheckpoint,
  type EpochEndOffset,
  type EpochEntry,
} from './leader-epoch-cache';
import { loadLeaderEpochCache, type LoadedLeaderEpochs } from './leader-epoch-loader';
import { GroupCommitWriter, newLogIoStats, type LogIoStats } from './writer';
import type { DiskFaults, LogFailureListener } from './disk-faults';

export interface OpenPartitionLogOptions {
  /** The broker's data dir; the log lives in `<dataDir>/<topic>-<partition>/`. */
  dataDir: string;
  topic: string;
  partition: number;
  config: LogConfig;
  clock: Clock;
  logger: Logger;
  /** Injected disk faults (tests only); see disk-faults.ts. */
  faults?: DiskFaults;
  /** Told once when this log fails and goes offline. */
  onFailure?: LogFailureListener;
}

const EMPTY = Buffer.alloc(0);

type LogState = 'open' | 'closing' | 'closed' | 'failed';

/** Opens (creating or recovering) the partition log in `<dataDir>/<topic>-<partition>/`. */
export function openPartitionLog(options: OpenPartitionLogOptions): Promise<SegmentedLog> {
  return SegmentedLog.open(options);
}

export class SegmentedLog implements PartitionLog {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  /** fs calls made by the writer: group commit is visible here. */
  readonly stats: LogIoStats = newLogIoStats();

  private config: LogConfig;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private segments: LogSegment[];
  private nextOffset: number;
  private writtenEndOffset: number;
  private startOffset: number;
  private recoveryPoint: number;
  private readonly producers: ProducerStateManager;
  private readonly snapshots: ProducerSnapshotStore;
  private readonly writer: GroupCommitWriter;
  private state: LogState = 'open';
  private exclusive: Promise<void> | undefined;
  private activeReads = 0;
  private readWaiters: (() => void)[] = [];
  private lastFlushMs: number;
  private closing: Promise<void> | undefined;
  /** Compaction state: cleaner checkpoint, segment swaps (compaction.ts; driven by the cleaner). */
  readonly compaction: LogCompaction;
  private readonly epochs: LeaderEpochCache;
  /** The epoch entries differ from the checkpoint file (appends change them in memory only). */
  private epochsDirty: boolean;
  private readonly onFailure: LogFailureListener | undefined;

  static async open(options: OpenPartitionLogOptions): Promise<SegmentedLog> {
    validateLogConfig(options.config);
    const dir = path.join(options.dataDir, partitionDirName(options.topic, options.partition));
    const logger = options.logger.child({
      component: 'log',
      topic: options.topic,
      partition: options.partition,
    });
    const loaded = await new LogLoader({ dir, config: options.config, clock: options.clock, logger }).load();
    let epochs: LoadedLeaderEpochs;
    try {
      epochs = await loadLeaderEpochCache({
        dir,
        segments: loaded.segments,
        logStartOffset: loaded.logStartOffset,
        logEndOffset: loaded.segments[loaded.segments.length - 1].nextOffset,
        logger,
      });
    } catch (err) {
      await Promise.allSettled(loaded.segments.map((s) => s.close()));
      throw err;
    }
    return new SegmentedLog(options, dir, logger, loaded, epochs);
  }

  private constructor(
    options: OpenPartitionLogOptions,
    dir: string,
    logger: Logger,
    loaded: Awaited<ReturnType<LogLoader['load']>>,
    epochs: LoadedLeaderEpochs,
  ) {
    this.epochs = epochs.cache;
    this.epochsDirty = epochs.dirty;
    this.onFailure = options.onFailure;
    this.topic = options.topic;
    this.partition = options.partition;
    this.dir = dir;
    this.config = { ...options.config };
    this.clock = options.clock;
    this.logger = logger;
    this.segments = loaded.segments;
    this.startOffset = loaded.logStartOffset;
    this.recoveryPoint = loaded.recoveryPoint;
    this.producers = loaded.producers;
    this.snapshots = loaded.snapshots;
    this.nextOffset = this.active.nextOffset;
    this.writtenEndOffset = this.nextOffset;
    this.lastFlushMs = options.clock.nowMs();
    this.writer = new GroupCommitWriter({
      syncEachRound: () => this.config.flushPolicy === 'sync',
      stats: this.stats,
      faults: options.faults,
      target: { topic: options.topic, partition: options.partition },
      onFailure: (err) => this.failed(err, 'write failed: partition log is offline until reopened'),
    });
    this.compaction = new LogCompaction({
      dir,
      logger,
      checkpoint: loaded.cleanerCheckpoint,
      host: {
        segments: () => this.segments,
        setSegments: (next) => (this.segments = next),
        logStartOffset: () => this.startOffset,
        logEndOffset: () => this.nextOffset,
        recoveryPoint: () => this.recoveryPoint,
        config: () => this.config,
        producers: () => this.producers.all(),
        isOpen: () => this.state === 'open',
        exclusive: () => this.exclusive,
        fail: (err) => this.failed(err, 'partition log is offline until reopened'),
      },
    });
  }

  get logStartOffset(): number {
    return this.startOffset;
  }

  get logEndOffset(): number {
    return this.nextOffset;
  }

  /** The offset after the last batch in the files: reads see everything below it. */
  get writtenOffset(): number {
    return this.writtenEndOffset;
  }

  get sizeBytes(): number {
    let total = 0;
    for (const segment of this.segments) total += segment.sizeBytes;
    return total;
  }

  get dirtyRatio(): number {
    return this.compaction.dirtyRatio();
  }

  /** Base offsets of the segments, oldest first (the last is the active segment). */
  segmentBaseOffsets(): number[] {
    return this.segments.map((s) => s.baseOffset);
  }

  get currentConfig(): Readonly<LogConfig> {
    return this.config;
  }

  private get active(): LogSegment {
    return this.segments[this.segments.length - 1];
  }

  // ---------------------------------------------------------------------------------------- append

  append(batches: Buffer, options: AppendOptions): Promise<AppendResult> {
    if (this.state !== 'open') return Promise.reject(this.unavailable());
    if (this.exclusive) return this.exclusive.then(() => this.append(batches, options));
    try {
      return this.appendNow(batches, options);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private appendNow(request: Buffer, options: AppendOptions): Promise<AppendResult> {
    const leaderEpoch = options.leaderEpoch;
    if (!Number.isInteger(leaderEpoch) || leaderEpoch < -1 || leaderEpoch > 0x7fff_ffff) {
      throw new TideError('INVALID_REQUEST', `leaderEpoch ${leaderEpoch} is not an int32 >= -1`);
    }
    const incoming = validateBatches(request, this.config.maxMessageBytes, {
      requireKeys: isCompacted(this.config),
    });
    const nowMs = this.clock.nowMs();
    const logAppendTime = this.config.timestampType === 'LogAppendTime';
    // Check every idempotent batch (against the state plus the request's earlier batches) first.
    const sequences = this.producers.begin({ topic: this.topic, partition: this.partition });
    const producerInfos: Array<ProducerBatchInfo | undefined> = [];
    const duplicates: ProducerBatch[] = [];
    let offset = this.nextOffset;
    for (const b of incoming) {
      let info: ProducerBatchInfo | undefined;
      if (b.producerId >= 0) {
        info = {
          producerId: b.producerId,
          epoch: b.producerEpoch,
          firstSeq: b.baseSequence,
          lastOffsetDelta: b.lastOffsetDelta,
          firstOffset: offset,
          maxTimestamp: logAppendTime ? nowMs : b.maxTimestamp,
        };
        const check = sequences.check(info);
        if (check.duplicate) {
          duplicates.push(check.original);
          continue;
        }
      }
      producerInfos.push(info);
      offset += b.lastOffsetDelta + 1;
    }
    if (duplicates.length > 0) return this.duplicateResult(duplicates, incoming.length);

    const baseOffset = this.nextOffset;
    if (this.epochs.assign(leaderEpoch, baseOffset)) this.epochsDirty = true;
    const done = this.assignAndWrite(
      request,
      incoming,
      producerInfos,
      options.leaderEpoch,
      logAppendTime,
      nowMs,
    );
    const result: AppendResult = {
      baseOffset,
      lastOffset: this.nextOffset - 1,
      logAppendTimeMs: logAppendTime ? nowMs : -1,
      logStartOffset: this.startOffset,
      duplicate: false,
    };
    return done.then(() => result);
  }

  /** A request that is entirely a retry: the original offsets, once the originals are written. */
  private duplicateResult(duplicates: ProducerBatch[], batchCount: number): Promise<AppendResult> {
    if (duplicates.length !== batchCount) {
      throw new TideError(
        'INVALID_RECORD',
        `append request mixes ${duplicates.length} retried batches with ${batchCount - duplicates.length} new ones`,
        {
          context: { topic: this.topic, partition: this.partition },
        },
      );
    }
    const result: AppendResult = {
      baseOffset: duplicates[0].firstOffset,
      lastOffset: duplicates[duplicates.length - 1].lastOffset,
      logAppendTimeMs: -1,
      logStartOffset: this.startOffset,
      duplicate: true,
    };
    return this.writer.barrier().then(() => result);
  }

  // ------------------------------------------------------------- replication: follower append, epochs

  appendAsFollower(batches: Buffer): Promise<AppendResult> {
    if (this.state !== 'open') return Promise.reject(this.unavailable());
    if (this.exclusive) return this.exclusive.then(() => this.appendAsFollower(batches));
    try {
      const contiguous = !this.config.cleanupPolicy.includes('compact');
      const incoming = validateFollowerBatches(batches, this.nextOffset, contiguous);
      const producerInfos = incoming.map((b): ProducerBatchInfo | undefined =>
        b.producerId < 0
          ? undefined
          : {
              producerId: b.producerId,
              epoch: b.producerEpoch,
              firstSeq: b.baseSequence,
              lastOffsetDelta: b.lastOffsetDelta,
              firstOffset: b.baseOffset,
              maxTimestamp: b.maxTimestamp,
            },
      );
      for (const b of incoming) {
        if (this.epochs.assign(b.partitionLeaderEpoch, b.baseOffset)) this.epochsDirty = true;
      }
      const done = this.assignAndWrite(
        batches,
        incoming,
        producerInfos,
        undefined,
        false,
        this.clock.nowMs(),
      );
      const result: AppendResult = {
        baseOffset: incoming[0].baseOffset,
        lastOffset: incoming[incoming.length - 1].lastOffset,
        logAppendTimeMs: -1,
        logStartOffset: this.startOffset,
        duplicate: false,
      };
      return done.then(() => result);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  get latestEpoch(): number {
    return this.epochs.latestEpoch;
  }

  epochEntries(): readonly EpochEntry[] {
    return this.epochs.entries();
  }

  endOffsetForEpoch(epoch: number): EpochEndOffset | undefined {
    return this.epochs.endOffsetFor(epoch, this.nextOffset);
  }

  async assignEpoch(epoch: number, startOffset?: number): Promise<void> {
    if (this.state !== 'open') throw this.unavailable();
    while (this.exclusive) await this.exclusive;
    if (this.epochs.assign(epoch, startOffset ?? this.nextOffset)) this.epochsDirty = true;
    const written = this.writer.barrier();
    if (this.epochsDirty) {
      // Queued after every earlier write and before any later append; not awaited (the loader
      // replays batch headers past the file anyway), so a new leader serves at once.
      const entries = this.epochs.entries().map((e) => ({ ...e }));
      this.epochsDirty = false;
      void this.writer.task(() =>
        writeLeaderEpochCheckpoint(path.join(this.dir, LEADER_EPOCH_CHECKPOINT_FILE), entries),
      );
    }
    await written;
  }

  /** Writes the epoch entries if they changed (inside an exclusive section). */
  private async persistEpochsNow(changed: boolean): Promise<void> {
    if (!changed && !this.epochsDirty) return;
    this.epochsDirty = false;
    await writeLeaderEpochCheckpoint(
      path.join(this.dir, LEADER_EPOCH_CHECKPOINT_FILE),
      this.epochs.entries(),
    );
  }

  /**
   * Rolls as needed, patches offsets in place, updates the producer state batch by batch (so that
   * a snapshot taken at a roll holds exactly the batches below the new segment), queues the bytes.
   * Synchronous up to the queueing; nothing here can fail once validation passed.
   * leaderEpoch undefined = a follower append: batches keep the offsets and epochs they carry.
   */
  private assignAndWrite(
    request: Buffer,
    incoming: ReadonlyArray<IncomingBatch & { baseOffset?: number }>,
    producerInfos: Array<ProducerBatchInfo | undefined>,
    leaderEpoch: number | undefined,
    logAppendTime: boolean,
    nowMs: number,
  ): Promise<void> {
    let segment = this.active;
    let chunkStart = 0;
    let chunkPosition = segment.assignedBytes;
    let written: SegmentBatch[] = [];
    for (let i = 0; i < incoming.length; i++) {
      const b = incoming[i];
      if (b.baseOffset !== undefined) this.nextOffset = b.baseOffset;
      const lastOffset = this.nextOffset + b.lastOffsetDelta;
      const reason = rollReason(segment, { sizeBytes: b.sizeBytes, lastOffset }, this.config, nowMs);
      if (reason) {
        // Writes complete in order, so the promise of the request's last write covers this one.
        if (written.length > 0)
          void this.queueWrite(
            segment,
            request.subarray(chunkStart, b.position),
            chunkPosition,
            written,
            nowMs,
          );
        written = [];
        chunkStart = b.position;
        segment = this.roll(reason, nowMs);
        chunkPosition = 0;
      }
      const producerInfo = producerInfos[i];
      if (producerInfo) this.producers.replay(producerInfo);
      if (leaderEpoch !== undefined) {
        patchBaseOffset(request, b.position, this.nextOffset);
        patchPartitionLeaderEpoch(request, b.position, leaderEpoch);
      }
      let maxTimestamp = b.maxTimestamp;
      if (logAppendTime) {
        request.writeInt16BE(
          request.readInt16BE(b.position + OFFSET_ATTRIBUTES) | TIMESTAMP_TYPE_BIT,
          b.position + OFFSET_ATTRIBUTES,
        );
        request.writeBigInt64BE(BigInt(nowMs), b.position + OFFSET_BASE_TIMESTAMP);
        request.writeBigInt64BE(BigInt(nowMs), b.position + OFFSET_MAX_TIMESTAMP);
        writeBatchCrc(request, b.position, b.sizeBytes);
        maxTimestamp = nowMs;
      }
      written.push({
        baseOffset: this.nextOffset,
        lastOffset,
        maxTimestamp,
        position: segment.assignedBytes,
        sizeBytes: b.sizeBytes,
      });
      if (segment.assignedBytes === 0) segment.rollingTimestampMs = nowMs;
      segment.assignedBytes += b.sizeBytes;
      this.nextOffset = lastOffset + 1;
    }
    return this.queueWrite(
      segment,
      chunkStart === 0 ? request : request.subarray(chunkStart),
      chunkPosition,
      written,
      nowMs,
    );
  }

  private queueWrite(
    segment: LogSegment,
    bytes: Buffer,
    position: number,
    batches: SegmentBatch[],
    nowMs: number,
  ): Promise<void> {
    return this.writer.write(segment, bytes, position, () => {
      for (const batch of batches) segment.onBatchWritten(batch);
      segment.lastModifiedMs = nowMs;
      this.writtenEndOffset = batches[batches.length - 1].lastOffset + 1;
    });
  }

  /**
   * Starts a new active segment at the log end, synchronously (offsets keep flowing); the writer
   * then finishes the old one (indexes, fdatasync), creates the new file, writes the producer
   * snapshot for the new base offset and moves the recovery point, before any write to the new one.
   */
  private roll(reason: RollReason | 'retention', nowMs: number): LogSegment {
    const old = this.active;
    const segment = new LogSegment(this.dir, this.nextOffset, this.config.indexIntervalBytes);
    segment.lastModifiedMs = nowMs;
    this.segments.push(segment);
    const snapshot = encodeProducerSnapshot(this.producers.all());
    this.logger.info(
      {
        reason,
        baseOffset: segment.baseOffset,
        previousBaseOffset: old.baseOffset,
        previousBytes: old.assignedBytes,
      },
      'rolling segment',
    );
    this.writer
      .task(async () => {
        await old.finalize();
        await segment.createFile();
        await this.snapshots.write(segment.baseOffset, snapshot);
        await writeOffsetCheckpoint(path.join(this.dir, RECOVERY_POINT_FILE), segment.baseOffset);
        this.recoveryPoint = segment.baseOffset;
        await this.pruneSnapshots(segment.baseOffset);
      })
      .catch(() => undefined); // the writer reports failures (onFailure) and fails later appends
    return segment;
  }

  /** Keeps snapshots at segment base offsets and at or above keepFrom. */
  private async pruneSnapshots(keepFrom: number): Promise<void> {
    const bases = new Set(this.segments.map((s) => s.baseOffset));
    await this.snapshots.deleteWhere((offset) => offset < keepFrom && !bases.has(offset));
  }

  // ------------------------------------------------------------------------------------------ read

  async read(offset: number, maxBytes: number, options: ReadOptions = {}): Promise<ReadResult> {
    await this.enterRead();
    // A swap replaces the list; segments it replaced stay open until reads holding them finish.
    const segments = this.segments;
    const ticket = this.compaction.enterRead();
    try {
      this.checkReadable(offset);
      const limit = Math.min(options.maxOffset ?? Number.POSITIVE_INFINITY, this.writtenEndOffset);
      if (offset < limit) {
        for (let i = this.floorSegment(offset, segments); i < segments.length; i++) {
          const found = await readSegment(segments[i], offset, maxBytes, limit);
          if (found) {
            return {
              batches: found.batches,
              nextOffset: found.batches.length > 0 ? found.nextOffset : offset,
              logStartOffset: this.startOffset,
            };
          }
        }
      }
      return { batches: EMPTY, nextOffset: offset, logStartOffset: this.startOffset };
    } finally {
      this.compaction.exitRead(ticket);
      this.exitRead();
    }
  }

  async offsetForTimestamp(timestampMs: number): Promise<TimestampLookup | undefined> {
    await this.enterRead();
    const segments = this.segments;
    const ticket = this.compaction.enterRead();
    try {
      if (this.state === 'closed') throw this.unavailable();
      for (let i = this.floorSegment(this.startOffset, segments); i < segments.length; i++) {
        const segment = segments[i];
        if (segment.sizeBytes === 0 || segment.maxTimestampMs < timestampMs) continue;
        const hit = await findByTimestamp(segment, timestampMs, this.startOffset);
        if (hit) return { offset: hit.offset, timestampMs: hit.timestampMs };
      }
      return undefined;
    } finally {
      this.compaction.exitRead(ticket);
      this.exitRead();
    }
  }

  private checkReadable(offset: number): void {
    if (this.state === 'closed' || this.state === 'closing') throw this.unavailable();
    if (!Number.isSafeInteger(offset) || offset < this.startOffset || offset > this.nextOffset) {
      throw new TideError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${offset} is outside [${this.startOffset}, ${this.nextOffset}] of ${this.topic}-${this.partition}`,
        {
          context: { topic: this.topic, partition: this.partition, offset },
        },
      );
    }
  }

  /** Index of the last segment whose base offset is <= offset (0 if none). */
  private floorSegment(offset: number, segments = this.segments): number {
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

  private async enterRead(): Promise<void> {
    while (this.exclusive) await this.exclusive;
    this.activeReads++;
  }

  private exitRead(): void {
    if (--this.activeReads > 0) return;
    const waiters = this.readWaiters;
    this.readWaiters = [];
    for (const wake of waiters) wake();
  }

  private drainReads(): Promise<void> {
    if (this.activeReads === 0) return Promise.resolve();
    return new Promise((resolve) => this.readWaiters.push(resolve));
  }

  // --------------------------------------------------------------------------- config and flushing

  updateConfig(config: LogConfig): void {
    validateLogConfig(config);
    this.config = { ...config };
    for (const segment of this.segments) segment.indexIntervalBytes = config.indexIntervalBytes;
  }

  async flush(): Promise<void> {
    if (this.state !== 'open') throw this.unavailable();
    this.lastFlushMs = this.clock.nowMs();
    await this.writer.task(() => this.syncSegments());
  }

  /**
   * For flushPolicy 'interval': starts a flush when flushIntervalMs have passed since the last one
   * and something is unsynced. The LogManager's flush timer calls this; errors are logged.
   */
  flushIfDue(nowMs: number): void {
    if (this.state !== 'open' || this.config.flushPolicy !== 'interval') return;
    if (nowMs - this.lastFlushMs < this.config.flushIntervalMs) return;
    if (this.active.unsyncedBytes === 0 && this.writer.idle) return;
    this.flush().catch((err: unknown) => this.logger.error({ err }, 'interval flush failed'));
  }

  private async syncSegments(): Promise<void> {
    for (const segment of this.segments) {
      if (await segment.sync()) this.stats.datasyncCalls++;
    }
  }

  // ----------------------------------------------------------------------- retention and truncation

  async applyRetention(nowMs: number, options: RetentionOptions = {}): Promise<number> {
    if (this.state !== 'open') return 0;
    // cleanup.policy=compact alone keeps every segment: only the cleaner removes records.
    if (!this.config.cleanupPolicy.split(',').includes('delete')) return 0;
    return this.runExclusive(async () => {
      if (this.state !== 'open') return 0;
      const summary = this.segments.map((s, i) => ({
        baseOffset: s.baseOffset,
        sizeBytes: s.sizeBytes,
        largestTimestampMs: s.largestTimestampMs(),
        endOffset: this.segments[i + 1]?.baseOffset ?? this.nextOffset,
      }));
      const plan = planRetention(summary, this.config, nowMs, options.maxOffset);
      if (plan.deleteCount === 0) return 0;
      if (plan.rollActive) {
        this.roll('retention', nowMs);
        await this.writer.barrier();
      }
      const doomed = this.segments.splice(0, plan.deleteCount);
      this.startOffset = Math.max(this.startOffset, this.segments[0].baseOffset);
      await writeOffsetCheckpoint(path.join(this.dir, LOG_START_OFFSET_FILE), this.startOffset);
      await this.persistEpochsNow(this.epochs.truncateFromStart(this.startOffset));
      this.producers.removeBefore(this.startOffset);
      let bytes = 0;
      for (const segment of doomed) {
        bytes += segment.sizeBytes;
        await segment.deleteFiles();
      }
      const firstBase = this.segments[0].baseOffset;
      await this.snapshots.deleteWhere((offset) => offset < firstBase);
      await fsyncDir(this.dir);
      this.logger.info(
        {
          segments: doomed.length,
          bytes,
          byTime: plan.byTime,
          bySize: plan.bySize,
          logStartOffset: this.startOffset,
        },
        'retention deleted segments',
      );
      return bytes;
    });
  }

  async truncateTo(offset: number): Promise<void> {
    if (this.state !== 'open') throw this.unavailable();
    await this.runExclusive(async () => {
      if (offset >= this.nextOffset) {
        // The log is already short enough, but epochs that start there have no batch left.
        await this.persistEpochsNow(this.epochs.truncateFromEnd(offset));
        return;
      }
      const before = this.nextOffset;
      if (offset < this.segments[0].baseOffset || offset < this.startOffset) {
        await this.truncateFullyAndStartAt(offset);
      } else {
        const index = this.floorSegment(offset);
        for (const segment of this.segments.splice(index + 1)) await segment.deleteFiles();
        const segment = this.active;
        await segment.truncateTo(offset);
        await segment.initRollingTimestamp(this.clock.nowMs());
        this.nextOffset = segment.nextOffset;
        this.writtenEndOffset = segment.nextOffset;
        await this.compaction.onTruncate(this.nextOffset);
        if (this.recoveryPoint > segment.baseOffset) {
          this.recoveryPoint = segment.baseOffset;
          await writeOffsetCheckpoint(path.join(this.dir, RECOVERY_POINT_FILE), this.recoveryPoint);
        }
        await restoreProducerState({
          segments: this.segments,
          snapshots: this.snapshots,
          producers: this.producers,
          endOffset: this.nextOffset,
          logStartOffset: this.startOffset,
          logger: this.logger,
        });
      }
      await this.persistEpochsNow(this.epochs.truncateFromEnd(this.nextOffset));
      await fsyncDir(this.dir);
      this.logger.info({ requested: offset, from: before, logEndOffset: this.nextOffset }, 'truncated log');
    });
  }

  async truncateFully(offset: number): Promise<void> {
    if (this.state !== 'open') throw this.unavailable();
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new TideError('INVALID_REQUEST', `invalid offset ${offset}`);
    await this.runExclusive(async () => {
      const before = this.nextOffset;
      await this.truncateFullyAndStartAt(offset);
      await fsyncDir(this.dir);
      this.logger.info({ from: before, logStartOffset: offset }, 'log emptied; restarting at a new offset');
    });
  }

  private async truncateFullyAndStartAt(offset: number): Promise<void> {
    await this.compaction.onTruncate(offset);
    await this.persistEpochsNow(this.epochs.clear());
    for (const segment of this.segments.splice(0)) await segment.deleteFiles();
    const segment = new LogSegment(this.dir, offset, this.config.indexIntervalBytes);
    await segment.createFile();
    segment.lastModifiedMs = this.clock.nowMs();
    this.segments = [segment];
    this.nextOffset = offset;
    this.writtenEndOffset = offset;
    this.startOffset = offset;
    this.recoveryPoint = offset;
    this.producers.clear();
    await this.snapshots.deleteWhere(() => true);
    await writeOffsetCheckpoint(path.join(this.dir, LOG_START_OFFSET_FILE), offset);
    await writeOffsetCheckpoint(path.join(this.dir, RECOVERY_POINT_FILE), offset);
  }

  // ------------------------------------------------------------------------------ close and delete

  close(): Promise<void> {
    if (!this.closing) this.closing = this.shutDown(true);
    return this.closing;
  }

  async delete(): Promise<void> {
    if (!this.closing) this.closing = this.shutDown(false);
    await this.closing;
    await fs.rm(this.dir, { recursive: true, force: true });
    this.logger.info('deleted partition log');
  }

  /** Waits for writes and reads, then (if keep) makes everything durable and marks a clean shutdown. */
  private async shutDown(keep: boolean): Promise<void> {
    const wasFailed = this.state === 'failed';
    this.state = 'closing';
    await this.compaction.abortPass();
    await this.runExclusive(async () => {
      const healthy = keep && !wasFailed && this.writer.failure === undefined;
      if (healthy) {
        const active = this.active;
        await active.finalize();
        await this.snapshots.write(this.nextOffset, encodeProducerSnapshot(this.producers.all()));
        await this.pruneSnapshots(this.nextOffset);
        await writeOffsetCheckpoint(path.join(this.dir, LOG_START_OFFSET_FILE), this.startOffset);
        await writeOffsetCheckpoint(path.join(this.dir, RECOVERY_POINT_FILE), active.baseOffset);
      }
      for (const segment of this.segments) await segment.close();
      await this.compaction.closeRetired();
      if (healthy) {
        await fs.writeFile(path.join(this.dir, CLEAN_SHUTDOWN_FILE), '');
        await fsyncDir(this.dir);
      }
      this.state = 'closed';
    }, true);
  }

  /**
   * Runs fn with appends and reads held back, after queued writes and in-flight reads are done.
   * With ignoreWriteFailure, a failed writer does not stop fn (closing a failed log).
   */
  private async runExclusive<T>(fn: () => Promise<T>, ignoreWriteFailure = false): Promise<T> {
    for (
      let busy = this.exclusive ?? this.compaction.swapping;
      busy;
      busy = this.exclusive ?? this.compaction.swapping
    )
      await busy;
    let release!: () => void;
    this.exclusive = new Promise<void>((resolve) => (release = resolve));
    try {
      const written = this.writer.barrier();
      if (ignoreWriteFailure) await written.catch(() => undefined);
      else await written;
      await this.drainReads();
      return await fn();
    } finally {
      this.exclusive = undefined;
      release();
    }
  }

  private failed(err: Error, why: string): void {
    const first = this.state !== 'failed';
    this.state = 'failed';
    this.logger.error({ err }, why);
    if (first) this.onFailure?.(this.topic, this.partition, err);
  }

  private unavailable(): TideError {
    const why = this.state === 'failed' ? 'failed after a write error' : 'closed';
    return new TideError('KAFKA_STORAGE_ERROR', `partition log ${this.topic}-${this.partition} is ${why}`, {
      context: { topic: this.topic, partition: this.partition },
    });
  }
}
