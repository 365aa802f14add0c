/**
 * Opens a partition folder: cleans leftovers, loads or recovers every segment, restores the
 * log start offset and the idempotent-producer state. Heavy work (scanning segments) reads the
 * files in large async chunks (batch-scan.ts), so the event loop stays responsive.
 *
 * Recovery rules:
 *   - A `<base>.log.swap` (a cleaned segment whose swap passed its commit point) replaces the .log
 *     files it covers and becomes `<base>.log` (segment-swap.ts, completeInterruptedSwaps).
 *   - Then `*.tmp`, `*.deleted`, `*.cleaned`, other `*.swap` files and index files without a .log
 *     are deleted.
 *   - Segments that end at or below the log-start-offset checkpoint are deleted (a crash in the
 *     middle of retention).
 *   - With the `clean-shutdown` marker (written by close()), segments and their index files are
 *     trusted; only the active segment's batches after its last index entry are re-checked (CRC).
 *   - Without it, every segment that may extend past the recovery point is scanned batch by batch
 *     (framing, CRC, and for logs that are not compacted and were never cleaned (no
 *     cleaner-checkpoint file) offsets following each other exactly, which catches
 *     a damaged baseOffset outside the CRC) and its indexes are rebuilt. The active (last) segment is cut at the first
 *     torn or corrupt batch, with a warning giving the bytes dropped. Older segments are never cut:
 *     the writer fsyncs a segment before the next one is created, so damage there is media
 *     corruption, not a torn write; it is logged as an error and left in place so that reads of it
 *     fail with KAFKA_STORAGE_ERROR instead of silently losing everything after it.
 *   - Index files that fail their sanity checks (whole entries, increasing, inside the file) or
 *     are missing are rebuilt by scanning the segment.
 *   - The producer state comes from the newest valid snapshot at or below the log end, plus a
 *     replay of the batch headers after it. The same replay rebuilds the aborted-transaction
 *     index entries (txn-index.ts) of the markers after the snapshot; entries below it come from
 *     the segments' .txnindex files (written when each segment was finalized).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';
import { scanBatches } from './batch-scan';
import { controlTypeOf, isControl, isTransactional, type ControlType } from '../../common/records/control';
import { CLEANER_CHECKPOINT_FILE, readCleanerCheckpoint, type CleanerCheckpoint } from './cleaner-checkpoint';
import { cleanupPolicyOf } from './cleanup-policy';
import { completeInterruptedSwaps } from './segment-swap';
import { readOffsetCheckpoint, writeOffsetCheckpoint } from './checkpoint';
import { fsyncDir, unlinkIfExists } from './fs-util';
import type { LogConfig } from './interface';
import {
  CLEAN_SHUTDOWN_FILE,
  INDEX_SUFFIX,
  LOG_START_OFFSET_FILE,
  LOG_SUFFIX,
  RECOVERY_POINT_FILE,
  TIME_INDEX_SUFFIX,
  TXN_INDEX_SUFFIX,
  isStrayFile,
  parseOffsetFileName,
} from './names';
import { OffsetIndex } from './offset-index';
import { ProducerSnapshotStore } from './producer-snapshot';
import { ProducerStateManager } from './producer-state';
import { LogSegment } from './segment';
import { TimeIndex } from './time-index';

export interface LogLoaderOptions {
  dir: string;
  config: LogConfig;
  clock: Clock;
  logger: Logger;
}

export interface LoadedLog {
  /** Oldest first; never empty; the last is the active segment. */
  segments: LogSegment[];
  logStartOffset: number;
  recoveryPoint: number;
  producers: ProducerStateManager;
  snapshots: ProducerSnapshotStore;
  /** True when the previous close() finished (the marker was there). */
  cleanShutdown: boolean;
  /**
   * True when the files on disk are what a clean close() of the loaded state would leave: a clean
   * shutdown loaded without recovering or rebuilding anything, or a new log (one empty segment).
   * A close() with nothing changed since then only marks the clean shutdown (partition-log.ts).
   */
  filesMatchCleanClose: boolean;
  /** The cleaner checkpoint, when the log was cleaned before (cleaner-checkpoint.ts). */
  cleanerCheckpoint: CleanerCheckpoint | undefined;
}

export class LogLoader {
  private readonly dir: string;
  private readonly logger: Logger;
  private readonly opened: LogSegment[] = [];
  /** A cleaner checkpoint exists: the log was compacted once, whatever its policy is now. */
  private cleaned = false;
  /** cleanup.policy includes compact. */
  private readonly compacted: boolean;
  /** Something on disk was recovered, rebuilt or deleted while loading. */
  private repaired = false;

  constructor(private readonly options: LogLoaderOptions) {
    this.compacted = cleanupPolicyOf(options.config).compact;
    this.dir = options.dir;
    this.logger = options.logger;
  }

  /** Offsets within a segment follow each other exactly unless compaction removed some. */
  private get contiguous(): boolean {
    return !this.compacted && !this.cleaned;
  }

  /** Loads the folder; on failure closes every file it opened and rethrows. */
  async load(): Promise<LoadedLog> {
    try {
      return await this.loadOrThrow();
    } catch (err) {
      await Promise.allSettled(this.opened.map((s) => s.close()));
      throw err;
    }
  }

  private async loadOrThrow(): Promise<LoadedLog> {
    await fs.mkdir(this.dir, { recursive: true });
    const listed = await fs.readdir(this.dir);
    const names = await this.removeStrayFiles(await completeInterruptedSwaps(this.dir, listed, this.logger));
    if (names.length !== listed.length || names.some((n, i) => n !== listed[i])) this.repaired = true;
    const fresh = !names.some((n) => parseOffsetFileName(n, LOG_SUFFIX) !== undefined);
    this.cleaned = names.includes(CLEANER_CHECKPOINT_FILE);
    const cleanerCheckpoint = this.cleaned ? await readCleanerCheckpoint(this.dir, this.logger) : undefined;
    const cleanShutdown = names.includes(CLEAN_SHUTDOWN_FILE);
    // Files the listing does not name are not read: a new log (thousands at once when a topic is
    // created) would pay a failed open for each.
    const readListed = (name: string) =>
      names.includes(name) ? readOffsetCheckpoint(path.join(this.dir, name), this.logger) : undefined;
    const logStartCheckpoint = await readListed(LOG_START_OFFSET_FILE);
    // After a clean shutdown the recovery point is not used (no segment is scanned), only compared
    // with the one to write below: close() wrote the same one, so a restart rewrites nothing.
    const storedRecoveryPoint = await readListed(RECOVERY_POINT_FILE);
    const recoveryCheckpoint = cleanShutdown ? undefined : storedRecoveryPoint;

    const { segments, fileSizes } = await this.openSegments(names, logStartCheckpoint);
    const recoveryPoint = recoveryCheckpoint ?? 0;
    const recovered: LogSegment[] = [];
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i];
      const next = segments[i + 1];
      const fileBytes = fileSizes.get(segment) ?? 0;
      if (!cleanShutdown && (next === undefined || next.baseOffset > recoveryPoint)) {
        await this.recover(segment, fileBytes, next === undefined);
        if (next) recovered.push(segment);
      } else {
        await this.loadWithIndexes(segment, fileBytes, next, names);
      }
      if (next) segment.nextOffset = Math.max(segment.nextOffset, next.baseOffset);
    }
    for (const segment of segments) {
      if (!names.includes(path.basename(segment.txnIndexFile))) continue; // none: nothing aborted
      const problem = await segment.loadTxnIndex();
      if (problem)
        this.logger.warn(
          { file: segment.txnIndexFile, problem },
          'ignoring invalid aborted-transaction index',
        );
    }
    const active = segments[segments.length - 1];
    await active.initRollingTimestamp(this.options.clock.nowMs());

    const logEndOffset = active.nextOffset;
    const logStartOffset = Math.min(
      Math.max(logStartCheckpoint ?? segments[0].baseOffset, segments[0].baseOffset),
      logEndOffset,
    );
    const snapshots = new ProducerSnapshotStore(this.dir, this.logger);
    const producers = new ProducerStateManager();
    await restoreProducerState({
      segments,
      snapshots,
      producers,
      endOffset: logEndOffset,
      logStartOffset,
      logger: this.logger,
      listed: names,
    });

    // Everything below the active segment is now fsynced and indexed on disk.
    for (const segment of recovered) {
      segment.unsyncedBytes = 1; // it may hold bytes the crash kept from reaching the disk
      await segment.finalize();
    }
    // A checkpoint is written only when what a reload would use differs from the value: a missing
    // recovery point means "recover every segment", the same as the active one's base when it is
    // the only segment; a missing log start means the first segment's base. One fsync of the folder
    // makes the renames and the marker's removal durable: if a crash keeps only some of them, the
    // next load finds the same files (fdatasynced before the renames) and computes the same values,
    // and a stale recovery point only makes it scan more.
    const effectiveRecoveryPoint = storedRecoveryPoint ?? (segments.length === 1 ? active.baseOffset : 0);
    if (effectiveRecoveryPoint !== active.baseOffset)
      await writeOffsetCheckpoint(path.join(this.dir, RECOVERY_POINT_FILE), active.baseOffset, false);
    if ((logStartCheckpoint ?? segments[0].baseOffset) !== logStartOffset)
      await writeOffsetCheckpoint(path.join(this.dir, LOG_START_OFFSET_FILE), logStartOffset, false);
    if (cleanShutdown) await unlinkIfExists(path.join(this.dir, CLEAN_SHUTDOWN_FILE));
    await fsyncDir(this.dir);
    this.logger.info(
      {
        segments: segments.length,
        logStartOffset,
        logEndOffset,
        cleanShutdown,
        producers: producers.producerCount,
      },
      'partition log loaded',
    );
    return {
      segments,
      logStartOffset,
      recoveryPoint: active.baseOffset,
      producers,
      snapshots,
      cleanShutdown,
      filesMatchCleanClose: (cleanShutdown || (fresh && active.sizeBytes === 0)) && !this.repaired,
      cleanerCheckpoint,
    };
  }

  private async removeStrayFiles(names: string[]): Promise<string[]> {
    const logBases = new Set(
      names.map((n) => parseOffsetFileName(n, LOG_SUFFIX)).filter((o) => o !== undefined),
    );
    const kept: string[] = [];
    for (const name of names) {
      const indexBase =
        parseOffsetFileName(name, INDEX_SUFFIX) ??
        parseOffsetFileName(name, TIME_INDEX_SUFFIX) ??
        parseOffsetFileName(name, TXN_INDEX_SUFFIX);
      const orphanIndex = indexBase !== undefined && !logBases.has(indexBase);
      if (isStrayFile(name) || orphanIndex) {
        this.logger.warn({ file: path.join(this.dir, name) }, 'deleting leftover file');
        await fs.rm(path.join(this.dir, name), { force: true, recursive: true });
      } else {
        kept.push(name);
      }
    }
    return kept;
  }

  /** Opens the .log files (creating a first one if there is none), minus those below logStart. */
  private async openSegments(
    names: string[],
    logStart: number | undefined,
  ): Promise<{ segments: LogSegment[]; fileSizes: Map<LogSegment, number> }> {
    const bases = names
      .map((n) => parseOffsetFileName(n, LOG_SUFFIX))
      .filter((o): o is number => o !== undefined)
      .sort((a, b) => a - b);
    const segments: LogSegment[] = [];
    const fileSizes = new Map<LogSegment, number>();
    for (const base of bases) {
      const segment = new LogSegment(this.dir, base, this.options.config.indexIntervalBytes);
      this.opened.push(segment);
      const { sizeBytes, mtimeMs } = await segment.openFile(this.options.config.flushPolicy === 'sync');
      segment.lastModifiedMs = mtimeMs;
      fileSizes.set(segment, sizeBytes);
      segments.push(segment);
    }
    while (logStart !== undefined && segments.length > 1 && segments[1].baseOffset <= logStart) {
      const gone = segments.shift() as LogSegment;
      this.logger.warn(
        { file: gone.logFile, logStartOffset: logStart },
        'deleting segment below the log start offset',
      );
      await gone.deleteFiles();
      this.repaired = true;
    }
    if (segments.length === 0) {
      const segment = new LogSegment(this.dir, logStart ?? 0, this.options.config.indexIntervalBytes);
      this.opened.push(segment);
      await segment.createFile(this.options.config.flushPolicy === 'sync');
      segment.lastModifiedMs = this.options.clock.nowMs();
      fileSizes.set(segment, 0);
      segments.push(segment);
    }
    return { segments, fileSizes };
  }

  /** Scans a segment with CRC checks and rebuilds its indexes; cuts the active one at damage. */
  private async recover(segment: LogSegment, fileBytes: number, isActive: boolean): Promise<void> {
    if (fileBytes > 0) this.repaired = true; // an empty file has empty indexes, rebuilt or not
    const result = await segment.rebuild(fileBytes, { verifyCrc: true, contiguous: this.contiguous });
    if (result.endPosition === fileBytes) return;
    const where = { file: segment.logFile, position: result.endPosition, reason: result.invalid };
    if (isActive) {
      this.logger.warn(
        { ...where, droppedBytes: fileBytes - result.endPosition },
        'truncating torn or corrupt tail of the active segment',
      );
      await segment.truncateFile(result.endPosition);
    } else {
      this.logger.error(where, 'corrupt batch inside a rolled segment: left in place, reads of it fail');
      segment.sizeBytes = fileBytes;
      segment.assignedBytes = fileBytes;
    }
  }

  /** Trusts the index files if they pass their checks (else rebuilds them by scanning). */
  private async loadWithIndexes(
    segment: LogSegment,
    fileBytes: number,
    next: LogSegment | undefined,
    names: readonly string[],
  ): Promise<void> {
    if (
      fileBytes === 0 &&
      next === undefined &&
      !names.includes(path.basename(segment.indexFile)) &&
      !names.includes(path.basename(segment.timeIndexFile))
    ) {
      // An empty active segment has empty indexes: a clean close of a log never written to
      // leaves no index files (partition-log.ts).
      return;
    }
    const files = await segment.readIndexFiles();
    let problem: string | undefined;
    let offsetIndex: OffsetIndex | string = 'missing';
    let timeIndex: TimeIndex | string = 'missing';
    if (files.offsetIndex)
      offsetIndex = OffsetIndex.fromBytes(segment.baseOffset, files.offsetIndex, fileBytes);
    if (files.timeIndex)
      timeIndex = TimeIndex.fromBytes(segment.baseOffset, files.timeIndex, next?.baseOffset);
    if (typeof offsetIndex === 'string') problem = `offset index: ${offsetIndex}`;
    else if (typeof timeIndex === 'string') problem = `time index: ${timeIndex}`;

    if (problem !== undefined || typeof offsetIndex === 'string' || typeof timeIndex === 'string') {
      this.repaired = true;
      this.logger.warn({ file: segment.logFile, problem }, 'rebuilding segment indexes');
      if (next === undefined) return this.recover(segment, fileBytes, true);
      const result = await segment.rebuild(fileBytes, { verifyCrc: false, contiguous: false });
      if (result.endPosition !== fileBytes) {
        this.logger.error(
          { file: segment.logFile, position: result.endPosition, reason: result.invalid },
          'corrupt batch inside a rolled segment: left in place, reads of it fail',
        );
        segment.sizeBytes = fileBytes;
        segment.assignedBytes = fileBytes;
      }
      await segment.writeIndexFiles();
      return;
    }
    segment.adoptIndexes(offsetIndex, timeIndex);
    if (next !== undefined) {
      segment.sizeBytes = fileBytes;
      segment.assignedBytes = fileBytes;
      segment.nextOffset = next.baseOffset;
      return;
    }
    // The active segment of a clean shutdown: re-check the batches after its last index entry.
    const tail = await segment.scanTail(fileBytes, { verifyCrc: true, contiguous: this.contiguous });
    if (tail.endPosition !== fileBytes) {
      this.logger.warn(
        { file: segment.logFile, position: tail.endPosition, reason: tail.invalid },
        'active segment damaged despite a clean shutdown; recovering it',
      );
      await this.recover(segment, fileBytes, true);
    }
  }
}

/**
 * Rebuilds the producer state as of endOffset: newest valid snapshot at or below it (newer ones
 * are deleted), then every idempotent batch header after it. Producers with nothing left at or
 * above logStartOffset are dropped.
 */
export async function restoreProducerState(args: {
  segments: readonly LogSegment[];
  snapshots: ProducerSnapshotStore;
  producers: ProducerStateManager;
  endOffset: number;
  logStartOffset: number;
  logger: Logger;
  /** The folder's file names, listed by the caller just before (else the store lists them). */
  listed?: readonly string[];
}): Promise<void> {
  const { segments, snapshots, producers, endOffset, logger } = args;
  producers.clear();
  const kept = await snapshots.deleteWhere(
    (offset) => offset > endOffset || offset < segments[0].baseOffset,
    args.listed,
  );
  const snapshot = await snapshots.latest(endOffset, kept);
  let from = segments[0].baseOffset;
  if (snapshot) {
    for (const entry of snapshot.entries) producers.restore(entry);
    from = Math.max(from, snapshot.offset);
  }
  // Index entries of markers at or after `from` are rebuilt by the replay below.
  for (const segment of segments) segment.txnIndex.truncateFrom(from);
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const next = segments[i + 1];
    if (next !== undefined && next.baseOffset <= from) continue;
    const start = segment.offsetIndex.lookup(from);
    const result = await scanBatches(
      segment.file,
      start.position,
      segment.sizeBytes,
      {
        verifyCrc: false,
        segmentBaseOffset: segment.baseOffset,
        minBaseOffset: start.offset,
        file: segment.logFile,
      },
      (b, buf, at) => {
        if (b.baseOffset < from || b.producerId < 0) return;
        const completed = producers.replay({
          producerId: b.producerId,
          epoch: b.producerEpoch,
          firstSeq: b.baseSequence,
          lastOffsetDelta: b.lastOffsetDelta,
          firstOffset: b.baseOffset,
          maxTimestamp: b.maxTimestamp,
          transactional: isTransactional(b.attributes),
          marker: isControl(b.attributes) ? markerOf(buf, at) : undefined,
        });
        if (completed?.aborted)
          segment.txnIndex.append({
            producerId: completed.producerId,
            firstOffset: completed.firstOffset,
            lastOffset: completed.lastOffset,
            lastStableOffset: producers.firstOpenOffset() ?? completed.lastOffset + 1,
          });
      },
    );
    if (result.invalid)
      logger.error(
        { file: segment.logFile, position: result.endPosition, reason: result.invalid },
        'producer state replay stopped at a corrupt batch',
      );
  }
  producers.removeBefore(args.logStartOffset);
}

/**
 * The marker of a control batch met in a replay. A control batch whose record cannot be read
 * (only a damaged disk makes one: the append path checks them) counts as ABORT: its records are
 * then hidden from read_committed readers rather than shown.
 */
function markerOf(buf: Buffer, at: number): ControlType {
  try {
    return controlTypeOf(buf, at);
  } catch {
    return 'ABORT';
  }
}
