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
 *   4. hand the request's bytes to the writer (writer.ts): one writev per group commit round, for
 *      flushPolicy 'sync' through an O_DSYNC handle. The promise resolves after that.
 * The caller's buffer is patched in place and written as is (zero copy): it must not be reused.
 *
 * Follower appends (appendAsFollower, checks in follower-append.ts) take the same path from step 3
 * on, without patching: batches keep the offsets and leader epochs the leader gave them. Both
 * paths record new leader epochs in the epoch cache (leader-epoch-cache.ts) in memory; its
 * checkpoint is written by assignEpoch, truncation and retention, and the loader replays batch
 * headers past the checkpoint (leader-epoch-loader.ts), so the append path makes no extra fs call.
 *
 * Structural operations (truncateTo, applyRetention, advanceLogStartOffset, close, delete) run
 * exclusively: appends and reads arriving meanwhile wait, in-flight writes and reads finish first.
 *
 * SegmentedLog is the facade over the parts, which share one PartitionLogState (log-state.ts: the
 * files, offsets, config and writer): the append path and rolling (log-append.ts), the read-write
 * gate (read-write-gate.ts), retention and truncation (retention-truncation.ts) and compaction
 * (compaction.ts). Reads, epochs, flushing and closing stay here.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';
import { TideError } from '../../common/errors';
import { writeOffsetCheckpoint } from './checkpoint';
import type { CleanupPolicy } from './cleanup-policy';
import { LogCompaction } from './compaction';
import { validateLogConfig } from './config';
import { fsyncDir, withShortLivedFd } from './fs-util';
import type {
  AppendOptions,
  AppendResult,
  LogConfig,
  OpenTransaction,
  PartitionLog,
  ReadOptions,
  ReadResult,
  RetentionOptions,
  TimestampLookup,
} from './interface';
import type { EpochEndOffset, EpochEntry } from './leader-epoch-cache';
import { loadLeaderEpochCache, type LoadedLeaderEpochs } from './leader-epoch-loader';
import type { DiskFaults, LogFailureListener } from './disk-faults';
import type { InlineWrites } from './inline-writes';
import { LogAppender } from './log-append';
import { LogLoader, type LoadedLog } from './log-loader';
import { PartitionLogState } from './log-state';
import { CLEAN_SHUTDOWN_FILE, LOG_START_OFFSET_FILE, RECOVERY_POINT_FILE, partitionDirName } from './names';
import { encodeProducerSnapshot } from './producer-snapshot';
import { ReadWriteGate } from './read-write-gate';
import { findByTimestamp, readSegment } from './reader';
import { RetentionAndTruncation } from './retention-truncation';
import type { LogSegment } from './segment';
import type { AbortedTransaction } from '../../common/records/control';
import type { LogIoStats } from './writer';

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
  /** When small page-cache writes go on the event loop (inline-writes.ts); absent: always the thread pool. */
  inlineWrites?: InlineWrites;
  /** Told once when this log fails and goes offline. */
  onFailure?: LogFailureListener;
}

const EMPTY = Buffer.alloc(0);

/**
 * The aborted transactions that may hide records in [fetchOffset, upperBound): Kafka collects
 * them from the index of the segment holding fetchOffset and every later one (a transaction's
 * marker always follows its records).
 */
function collectAborted(
  segments: readonly LogSegment[],
  first: number,
  fetchOffset: number,
  upperBound: number,
): AbortedTransaction[] {
  const out: AbortedTransaction[] = [];
  for (let i = first; i < segments.length; i++) segments[i].txnIndex.collect(fetchOffset, upperBound, out);
  return out;
}

/** Opens (creating or recovering) the partition log in `<dataDir>/<topic>-<partition>/`. */
export function openPartitionLog(options: OpenPartitionLogOptions): Promise<SegmentedLog> {
  return SegmentedLog.open(options);
}

export class SegmentedLog implements PartitionLog {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  /** fs calls made by the writer: group commit is visible here. */
  readonly stats: LogIoStats;
  /** Compaction state: cleaner checkpoint, segment swaps (compaction.ts; driven by the cleaner). */
  readonly compaction: LogCompaction;

  private readonly log: PartitionLogState;
  private readonly gate: ReadWriteGate;
  private readonly appender: LogAppender;
  private readonly trimmer: RetentionAndTruncation;
  private lastFlushMs: number;
  private closing: Promise<void> | undefined;
  /** The state the files on disk match as a clean close left them (see shutDown), if they do. */
  private readonly filesOnDisk: string | undefined;
  /** Compaction swaps done (each replaces segment files). */
  private segmentSwaps = 0;

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
    loaded: LoadedLog,
    epochs: LoadedLeaderEpochs,
  ) {
    this.topic = options.topic;
    this.partition = options.partition;
    this.dir = dir;
    const log = new PartitionLogState({
      topic: options.topic,
      partition: options.partition,
      dir,
      config: options.config,
      clock: options.clock,
      logger,
      loaded,
      epochs: epochs.cache,
      epochsDirty: epochs.dirty,
      epochsOnDisk: epochs.onDisk,
      faults: options.faults,
      inlineWrites: options.inlineWrites,
      onFailure: options.onFailure,
    });
    this.log = log;
    this.stats = log.stats;
    this.lastFlushMs = options.clock.nowMs();
    this.compaction = new LogCompaction({
      dir,
      logger,
      checkpoint: loaded.cleanerCheckpoint,
      host: {
        segments: () => log.segments,
        setSegments: (next) => {
          log.segments = next;
          this.segmentSwaps++;
        },
        logStartOffset: () => log.startOffset,
        logEndOffset: () => log.nextOffset,
        recoveryPoint: () => log.recoveryPoint,
        config: () => log.config,
        cleanupPolicy: () => log.cleanup,
        producers: () => log.producers.all(),
        firstUnstableOffset: (hw) =>
          hw === undefined ? log.producers.firstOpenOffset() : log.producers.firstUnstableOffset(hw),
        isOpen: () => log.status === 'open',
        exclusive: () => this.gate.exclusive,
        fail: (err) => log.fail(err),
      },
    });
    this.gate = new ReadWriteGate({
      writesDone: () => log.writer.barrier(),
      swapping: () => this.compaction.swapping,
    });
    this.appender = new LogAppender(log, this.gate);
    this.trimmer = new RetentionAndTruncation(log, this.gate, this.appender, this.compaction);
    this.filesOnDisk = loaded.filesMatchCleanClose ? this.stateSignature() : undefined;
  }

  /**
   * What a clean close writes depends on: every segment's base and size, the log start and end,
   * the writes made (appends and the markers of transactions, which also move the producer
   * state; a truncation changes a size or the end, retention the segments) and compaction swaps.
   */
  private stateSignature(): string {
    const log = this.log;
    const segments = log.segments.map((s) => `${s.baseOffset}:${s.sizeBytes}`).join(',');
    const { writevCalls, bytesWritten } = this.stats;
    return `${segments}|${log.startOffset}|${log.nextOffset}|${writevCalls}|${bytesWritten}|${this.segmentSwaps}`;
  }

  get logStartOffset(): number {
    return this.log.startOffset;
  }

  get logEndOffset(): number {
    return this.log.nextOffset;
  }

  /** The offset after the last batch in the files: reads see everything below it. */
  get writtenOffset(): number {
    return this.log.writtenEndOffset;
  }

  get sizeBytes(): number {
    let total = 0;
    for (const segment of this.log.segments) total += segment.sizeBytes;
    return total;
  }

  get dirtyRatio(): number {
    return this.compaction.dirtyRatio();
  }

  /** Base offsets of the segments, oldest first (the last is the active segment). */
  segmentBaseOffsets(): number[] {
    return this.log.segments.map((s) => s.baseOffset);
  }

  get currentConfig(): Readonly<LogConfig> {
    return this.log.config;
  }

  /** The config's cleanup.policy, parsed. */
  get cleanupPolicy(): CleanupPolicy {
    return this.log.cleanup;
  }

  /** The segments, oldest first (for tests that look inside). */
  private get segments(): LogSegment[] {
    return this.log.segments;
  }

  // ---------------------------------------------------------------------- append (log-append.ts)

  append(batches: Buffer, options: AppendOptions): Promise<AppendResult> {
    return this.appender.append(batches, options);
  }

  // ------------------------------------------------------------- replication: follower append, epochs

  appendAsFollower(batches: Buffer): Promise<AppendResult> {
    return this.appender.appendAsFollower(batches);
  }

  get latestEpoch(): number {
    return this.log.epochs.latestEpoch;
  }

  epochEntries(): readonly EpochEntry[] {
    return this.log.epochs.entries();
  }

  endOffsetForEpoch(epoch: number): EpochEndOffset | undefined {
    return this.log.epochs.endOffsetFor(epoch, this.log.nextOffset);
  }

  async assignEpoch(epoch: number, startOffset?: number): Promise<void> {
    const log = this.log;
    if (log.status !== 'open') throw log.unavailable();
    while (this.gate.exclusive) await this.gate.exclusive;
    if (log.epochs.assign(epoch, startOffset ?? log.nextOffset)) log.epochsDirty = true;
    const written = log.writer.barrier();
    if (log.epochsDirty) {
      // Queued after every earlier write and before any later append; not awaited (the loader
      // replays batch headers past the file anyway), so a new leader serves at once.
      const entries = log.epochs.entries().map((e) => ({ ...e }));
      log.epochsDirty = false;
      void log.writer.task(() => log.writeEpochCheckpoint(entries));
    }
    await written;
  }

  // ------------------------------------------------------------------------------------------ read

  async read(offset: number, maxBytes: number, options: ReadOptions = {}): Promise<ReadResult> {
    await this.gate.enterRead();
    // A swap replaces the list; segments it replaced stay open until reads holding them finish.
    const segments = this.log.segments;
    const ticket = this.compaction.enterRead();
    try {
      this.checkReadable(offset);
      const limit = Math.min(options.maxOffset ?? Number.POSITIVE_INFINITY, this.log.writtenEndOffset);
      const committed = options.isolation === 'read_committed';
      if (offset < limit) {
        const first = this.log.floorSegment(offset, segments);
        for (let i = first; i < segments.length; i++) {
          const found = await readSegment(segments[i], offset, maxBytes, limit);
          if (found) {
            const nextOffset = found.batches.length > 0 ? found.nextOffset : offset;
            return {
              batches: found.batches,
              nextOffset,
              logStartOffset: this.log.startOffset,
              ...(committed
                ? { abortedTransactions: collectAborted(segments, first, offset, nextOffset) }
                : {}),
            };
          }
        }
      }
      return {
        batches: EMPTY,
        nextOffset: offset,
        logStartOffset: this.log.startOffset,
        ...(committed ? { abortedTransactions: [] } : {}),
      };
    } finally {
      this.compaction.exitRead(ticket);
      this.gate.exitRead();
    }
  }

  lastStableOffset(hw: number): number {
    const first = this.log.producers.firstUnstableOffset(hw);
    return first === undefined ? hw : Math.min(first, hw);
  }

  openTransactions(): OpenTransaction[] {
    return this.log.producers.openTransactions();
  }

  producerEpoch(producerId: number): number | undefined {
    return this.log.producers.get(producerId)?.epoch;
  }

  hasOpenTransaction(producerId: number, producerEpoch: number): boolean {
    const entry = this.log.producers.get(producerId);
    return entry !== undefined && entry.currentTxnFirstOffset >= 0 && entry.epoch === producerEpoch;
  }

  async offsetForTimestamp(timestampMs: number): Promise<TimestampLookup | undefined> {
    await this.gate.enterRead();
    const segments = this.log.segments;
    const ticket = this.compaction.enterRead();
    try {
      if (this.log.status === 'closed') throw this.log.unavailable();
      for (let i = this.log.floorSegment(this.log.startOffset, segments); i < segments.length; i++) {
        const segment = segments[i];
        if (segment.sizeBytes === 0 || segment.maxTimestampMs < timestampMs) continue;
        const hit = await findByTimestamp(segment, timestampMs, this.log.startOffset);
        if (hit) return { offset: hit.offset, timestampMs: hit.timestampMs };
      }
      return undefined;
    } finally {
      this.compaction.exitRead(ticket);
      this.gate.exitRead();
    }
  }

  private checkReadable(offset: number): void {
    const log = this.log;
    if (log.status === 'closed' || log.status === 'closing') throw log.unavailable();
    if (!Number.isSafeInteger(offset) || offset < log.startOffset || offset > log.nextOffset) {
      throw new TideError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${offset} is outside [${log.startOffset}, ${log.nextOffset}] of ${this.topic}-${this.partition}`,
        {
          context: { topic: this.topic, partition: this.partition, offset },
        },
      );
    }
  }

  // --------------------------------------------------------------------------- config and flushing

  updateConfig(config: LogConfig): void {
    this.log.setConfig(config);
    if (this.log.status === 'open' && this.log.active.needsReopen(config.flushPolicy === 'sync'))
      void this.reopenActiveSegment().catch((err: unknown) =>
        this.log.logger.warn(
          { err },
          'reopening the active segment for the new flush.policy failed; it takes effect at the next segment',
        ),
      );
  }

  /**
   * A flush.policy change reaches the active segment at once: its file is reopened with O_DSYNC
   * ('sync') or without (the others), with appends and reads held back meanwhile. Without this a
   * segment opened under 'sync' kept writing durably, through the thread pool, until it rolled
   * (1 GiB later by default). Later segments are opened to match the policy anyway.
   */
  private async reopenActiveSegment(): Promise<void> {
    const log = this.log;
    await this.gate.runExclusive(async () => {
      if (log.status !== 'open') return;
      // Bytes written under 'os' or 'interval' are made durable by the writer before its first
      // O_DSYNC write (writeDurably), so nothing needs syncing here.
      const reopened = await log.active.reopenFile(log.config.flushPolicy === 'sync');
      if (reopened)
        log.logger.debug(
          { flushPolicy: log.config.flushPolicy, segment: log.active.baseOffset },
          'active segment reopened for the new flush.policy',
        );
    });
  }

  async flush(): Promise<void> {
    if (this.log.status !== 'open') throw this.log.unavailable();
    this.lastFlushMs = this.log.clock.nowMs();
    await this.log.writer.task(() => this.syncSegments());
  }

  /**
   * For flushPolicy 'interval': starts a flush when flushIntervalMs have passed since the last one
   * and something is unsynced. The LogManager's flush timer calls this; errors are logged.
   */
  flushIfDue(nowMs: number): void {
    const log = this.log;
    if (log.status !== 'open' || log.config.flushPolicy !== 'interval') return;
    if (nowMs - this.lastFlushMs < log.config.flushIntervalMs) return;
    if (log.active.unsyncedBytes === 0 && log.writer.idle) return;
    this.flush().catch((err: unknown) => log.logger.error({ err }, 'interval flush failed'));
  }

  private async syncSegments(): Promise<void> {
    for (const segment of this.log.segments) {
      if (await segment.sync()) this.stats.datasyncCalls++;
    }
  }

  // ------------------------------------------------- retention and truncation (retention-truncation.ts)

  applyRetention(nowMs: number, options: RetentionOptions = {}): Promise<number> {
    return this.trimmer.applyRetention(nowMs, options);
  }

  advanceLogStartOffset(offset: number): Promise<number> {
    return this.trimmer.advanceStartOffset(offset);
  }

  truncateTo(offset: number): Promise<void> {
    return this.trimmer.truncateTo(offset);
  }

  truncateFully(offset: number): Promise<void> {
    return this.trimmer.truncateFully(offset);
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
    this.log.logger.info('deleted partition log');
  }

  /** Waits for writes and reads, then (if keep) makes everything durable and marks a clean shutdown. */
  private async shutDown(keep: boolean): Promise<void> {
    const log = this.log;
    const wasFailed = log.status === 'failed';
    log.status = 'closing';
    await this.compaction.abortPass();
    await this.gate.runExclusive(async () => {
      const healthy = keep && !wasFailed && log.writer.failure === undefined;
      // A log nothing changed since it was opened (after a clean shutdown, or created and never
      // written) has on disk what the writes below would put there: the marker alone is needed.
      // A broker with 10,000 mostly idle partitions stops and restarts in a fraction of the time.
      const unchanged = this.filesOnDisk !== undefined && this.filesOnDisk === this.stateSignature();
      if (healthy && !unchanged) {
        const active = log.active;
        await active.finalize();
        // The renames below become durable together, with one fsync of the folder before the
        // clean-shutdown marker is created (a broker with 10,000 partitions makes 10,000 folders
        // durable at shutdown).
        await log.snapshots.write(log.nextOffset, encodeProducerSnapshot(log.producers.all()), false);
        await log.pruneSnapshots(log.nextOffset);
        await writeOffsetCheckpoint(path.join(this.dir, LOG_START_OFFSET_FILE), log.startOffset, false);
        await writeOffsetCheckpoint(path.join(this.dir, RECOVERY_POINT_FILE), active.baseOffset, false);
      }
      for (const segment of log.segments) await segment.close();
      await this.compaction.closeRetired();
      if (healthy) {
        if (!unchanged) await fsyncDir(this.dir);
        await withShortLivedFd(() => fs.writeFile(path.join(this.dir, CLEAN_SHUTDOWN_FILE), ''));
        await fsyncDir(this.dir);
      }
      log.status = 'closed';
    }, true);
  }
}
