/**
 * The compaction side of one partition log (owned by SegmentedLog, driven by the LogCleaner in
 * cleaner/log-cleaner.ts): the cleaner checkpoint, what is cleanable and how dirty it is, the
 * registration of a running pass, the commit (swap) of each cleaned segment, and the deferred
 * closing of replaced segments while reads that started before a swap still use them.
 *
 * Concurrency with the log:
 *   - appends never wait for compaction: the active segment is never cleaned;
 *   - reads capture the segment list when they start (a swap replaces the list, never mutates it)
 *     and take a read ticket; a replaced segment is closed once every read that might hold it ends;
 *   - structural operations (retention, truncation, close) and swaps exclude each other: a swap
 *     waits for a running one to finish, and they wait for a running swap (SegmentedLog's
 *     runExclusive checks `swapping`);
 *   - a swap re-checks that the segments it replaces are still the ones the pass read (same
 *     objects, same sizes, not active); if retention or truncation changed them, the cleaned
 *     segment is discarded and the pass stops.
 */
import type { Logger } from '../../common/logger';
import { TideError, toTideError } from '../../common/errors';
import { writeCleanerCheckpoint, type CleanerCheckpoint } from './cleaner-checkpoint';
import type { CleanJob, CleanJobResult, CleanedSegment } from './cleaner/clean-job';
import { cleanableRange, type Cleanable, type SegmentSummary } from './cleaner/planner';
import type { CleanupPolicy } from './cleanup-policy';
import type { LogConfig } from './interface';
import type { ProducerEntry } from './producer-state';
import type { LogSegment } from './segment';
import { deleteReplaced, swapInCleaned, type SwapStep } from './segment-swap';
import { unlinkIfExists } from './fs-util';

/** What a log lends its compaction (closures over SegmentedLog's private state). */
export interface CompactionHost {
  segments(): LogSegment[];
  /** Replaces the segment list (never mutate the old one: reads may hold it). */
  setSegments(next: LogSegment[]): void;
  logStartOffset(): number;
  logEndOffset(): number;
  recoveryPoint(): number;
  config(): LogConfig;
  /** config().cleanupPolicy, parsed. */
  cleanupPolicy(): CleanupPolicy;
  producers(): Iterable<ProducerEntry>;
  /**
   * The first offset of a transaction still open, or (given the high watermark) closed by a marker
   * not below it yet; undefined when there is none. The cleaner stays below it (the LSO).
   */
  firstUnstableOffset(hw: number | undefined): number | undefined;
  isOpen(): boolean;
  /** The running structural operation, if any. */
  exclusive(): Promise<void> | undefined;
  /** Takes the log offline after a failure past a swap's commit point. */
  fail(err: TideError): void;
}

/** What a log gives its LogCompaction. */
export interface CompactionOptions {
  dir: string;
  logger: Logger;
  host: CompactionHost;
  /** The checkpoint found at load, if any. */
  checkpoint: CleanerCheckpoint | undefined;
}

/** A pass planned for one log: the job for the worker, plus what was measured to plan it. */
export interface PlannedPass {
  job: CleanJob;
  cleanable: Cleanable;
}

interface RunningPass {
  abort(): void;
  done: Promise<unknown>;
}

/** The compaction state of one partition log (see the header). */
export class LogCompaction {
  /** Hook for fault-injection tests: called at each swap step. */
  swapHook: ((step: SwapStep) => void) | undefined;

  private current: CleanerCheckpoint | undefined;
  private pass: RunningPass | undefined;
  private swapLock: Promise<void> | undefined;
  private readEpoch = 0;
  private readonly readers = new Map<number, number>();
  private retired: { epoch: number; segments: LogSegment[] }[] = [];
  private deleting: Promise<void> = Promise.resolve();

  constructor(private readonly options: CompactionOptions) {
    this.current = options.checkpoint;
  }

  get checkpoint(): Readonly<CleanerCheckpoint> | undefined {
    return this.current;
  }

  /** Resolves when the running swap is done; undefined when none runs. */
  get swapping(): Promise<void> | undefined {
    return this.swapLock;
  }

  get passRunning(): boolean {
    return this.pass !== undefined;
  }

  /**
   * Cleanable range and dirty ratio now, bounded by the high watermark when given and by the last
   * stable offset: the cleaner never touches a transaction that is not decided and replicated (it
   * must know whether its records are aborted, and its marker must not be cut off).
   */
  cleanable(nowMs: number, maxOffset?: number, withLag = true): Cleanable {
    const host = this.options.host;
    const unstable = host.firstUnstableOffset(maxOffset);
    const bound =
      unstable === undefined ? maxOffset : Math.min(unstable, maxOffset ?? Number.POSITIVE_INFINITY);
    return cleanableRange({
      segments: this.summaries(),
      logStartOffset: host.logStartOffset(),
      checkpoint: this.current?.firstDirtyOffset,
      recoveryPoint: host.recoveryPoint(),
      maxOffset: bound,
      nowMs,
      minCompactionLagMs: withLag ? host.config().minCompactionLagMs : 0,
      maxCompactionLagMs: host.config().maxCompactionLagMs,
    });
  }

  /**
   * Dirty bytes / (clean + dirty bytes) of the segments below the active one (ignoring the lag and
   * the high watermark): what `tide topics describe` shows. 0 for logs that are not compacted.
   */
  dirtyRatio(): number {
    if (!this.options.host.cleanupPolicy().compact) return 0;
    return this.cleanable(0, undefined, false).dirtyRatio;
  }

  /** True when tombstones kept by an earlier pass have reached their delete horizon. */
  tombstonesDue(nowMs: number): boolean {
    const horizon = this.current?.nextDeleteHorizonMs ?? -1;
    return horizon >= 0 && nowMs >= horizon;
  }

  /** The next pass for this log, or undefined when nothing below the uncleanable bound exists. */
  plan(args: {
    nowMs: number;
    maxOffset?: number;
    dedupeBufferBytes: number;
    dedupeLoadFactor: number;
    ioBytesPerSecond: number;
    ioBufferBytes: number;
  }): PlannedPass | undefined {
    const host = this.options.host;
    const cleanable = this.cleanable(args.nowMs, args.maxOffset);
    if (cleanable.cleanableCount === 0) return undefined;
    const config = host.config();
    const segments = host.segments().slice(0, cleanable.cleanableCount);
    const all = host.segments();
    const producerLastOffsets: Array<[number, number]> = [];
    for (const entry of host.producers()) {
      const last = entry.batches[entry.batches.length - 1];
      if (last) producerLastOffsets.push([entry.producerId, last.lastOffset]);
    }
    // The aborted transactions decided below the cleanable bound: their records are dropped.
    const abortedTransactions: Array<[number, number, number]> = [];
    for (const segment of segments)
      for (const t of segment.txnIndex.entries())
        if (t.lastOffset < cleanable.firstUncleanableOffset)
          abortedTransactions.push([t.producerId, t.firstOffset, t.lastOffset]);
    return {
      cleanable,
      job: {
        dir: this.options.dir,
        segments: segments.map((s, i) => ({
          baseOffset: s.baseOffset,
          file: s.logFile,
          sizeBytes: s.sizeBytes,
          endOffset: all[i + 1].baseOffset,
        })),
        firstDirtyOffset: cleanable.firstDirtyOffset,
        firstUncleanableOffset: cleanable.firstUncleanableOffset,
        nowMs: args.nowMs,
        deleteRetentionMs: config.deleteRetentionMs,
        producerLastOffsets,
        abortedTransactions,
        segmentBytes: config.segmentBytes,
        indexIntervalBytes: config.indexIntervalBytes,
        dedupeBufferBytes: args.dedupeBufferBytes,
        dedupeLoadFactor: args.dedupeLoadFactor,
        ioBytesPerSecond: args.ioBytesPerSecond,
        ioBufferBytes: args.ioBufferBytes,
      },
    };
  }

  /** Registers a running pass so that close() can stop it; false when the log is not open. */
  beginPass(pass: RunningPass): boolean {
    if (!this.options.host.isOpen() || this.pass) return false;
    this.pass = pass;
    void pass.done.then(
      () => this.endPass(pass),
      () => this.endPass(pass),
    );
    return true;
  }

  /** Stops the running pass, if any, and waits for it (before the log closes). */
  async abortPass(): Promise<void> {
    const pass = this.pass;
    if (!pass) return;
    pass.abort();
    await pass.done.catch(() => undefined);
  }

  /**
   * Swaps a cleaned segment in (segment-swap.ts). Resolves false, deleting the cleaned file, when
   * the log changed under the pass or is closing. A failure before the commit point leaves the log
   * as it was; after it, the log goes offline (reopening finishes the swap).
   */
  async commitSegment(cleaned: CleanedSegment): Promise<boolean> {
    const host = this.options.host;
    for (let busy = host.exclusive() ?? this.swapLock; busy; busy = host.exclusive() ?? this.swapLock)
      await busy;
    const originals = this.originalsOf(cleaned);
    if (!originals) {
      await unlinkIfExists(cleaned.file);
      return false;
    }
    let release!: () => void;
    this.swapLock = new Promise<void>((resolve) => (release = resolve));
    let committed = false;
    try {
      const segment = await swapInCleaned({
        dir: this.options.dir,
        cleaned,
        originals,
        indexIntervalBytes: host.config().indexIntervalBytes,
        lastModifiedMs: originals[originals.length - 1].lastModifiedMs,
        onCommitted: () => (committed = true),
        hook: this.swapHook,
      });
      const current = host.segments();
      const at = current.indexOf(originals[0]);
      host.setSegments([...current.slice(0, at), segment, ...current.slice(at + originals.length)]);
      this.retire(originals);
      return true;
    } catch (err) {
      if (!committed) {
        await unlinkIfExists(cleaned.file).catch(() => false);
        throw err;
      }
      const error = toTideError(err);
      this.options.logger.error(
        { err: error, file: cleaned.file },
        'segment swap failed after its commit point',
      );
      host.fail(
        new TideError('KAFKA_STORAGE_ERROR', `segment swap failed: ${error.message}`, { cause: err }),
      );
      throw error;
    } finally {
      this.swapLock = undefined;
      release();
    }
  }

  /** After a pass: the new checkpoint (written before it is used). */
  async finishPass(result: CleanJobResult): Promise<void> {
    const next: CleanerCheckpoint = {
      firstDirtyOffset: result.endOffset,
      nextDeleteHorizonMs: result.nextDeleteHorizonMs,
    };
    await writeCleanerCheckpoint(this.options.dir, next);
    this.current = next;
  }

  /** A truncation to `logEndOffset`: nothing at or above it may count as clean any more. */
  async onTruncate(logEndOffset: number): Promise<void> {
    if (!this.current || this.current.firstDirtyOffset <= logEndOffset) return;
    const next = { ...this.current, firstDirtyOffset: logEndOffset };
    await writeCleanerCheckpoint(this.options.dir, next);
    this.current = next;
  }

  /** A read starts: returns its ticket for exitRead. */
  enterRead(): number {
    const epoch = this.readEpoch;
    this.readers.set(epoch, (this.readers.get(epoch) ?? 0) + 1);
    return epoch;
  }

  exitRead(ticket: number): void {
    const left = (this.readers.get(ticket) ?? 1) - 1;
    if (left > 0) this.readers.set(ticket, left);
    else this.readers.delete(ticket);
    if (this.retired.length > 0) this.closeRetired(false);
  }

  /**
   * Closes replaced segments no read can still use (all of them when `all`) and waits for every
   * close started so far.
   */
  async closeRetired(all = true): Promise<void> {
    let oldestReader = Number.POSITIVE_INFINITY;
    if (!all) for (const epoch of this.readers.keys()) oldestReader = Math.min(oldestReader, epoch);
    const ready = this.retired.filter((r) => r.epoch < oldestReader);
    if (ready.length > 0) {
      this.retired = this.retired.filter((r) => r.epoch >= oldestReader);
      const segments = ready.flatMap((r) => r.segments);
      this.deleting = this.deleting.then(async () => {
        for (const segment of segments) {
          await deleteReplaced(segment).catch((err: unknown) =>
            this.options.logger.warn({ err, file: segment.logFile }, 'could not delete a replaced segment'),
          );
        }
      });
    }
    await this.deleting;
  }

  private retire(segments: LogSegment[]): void {
    this.retired.push({ epoch: this.readEpoch, segments });
    this.readEpoch++;
    void this.closeRetired(false);
  }

  private endPass(pass: RunningPass): void {
    if (this.pass === pass) this.pass = undefined;
  }

  /** The live segments a cleaned segment replaces, if the log still holds exactly them. */
  private originalsOf(cleaned: CleanedSegment): LogSegment[] | undefined {
    const host = this.options.host;
    if (!host.isOpen()) return undefined;
    const segments = host.segments();
    const at = segments.findIndex((s) => s.baseOffset === cleaned.replaces[0]);
    const n = cleaned.replaces.length;
    if (at < 0 || at + n >= segments.length) return undefined; // gone, or reaching the active segment
    for (let k = 0; k < n; k++) {
      const s = segments[at + k];
      if (s.baseOffset !== cleaned.replaces[k] || s.sizeBytes !== cleaned.replacedBytes[k]) return undefined;
    }
    if (segments[at + n].baseOffset !== cleaned.endOffset) return undefined;
    return segments.slice(at, at + n);
  }

  private summaries(): SegmentSummary[] {
    const host = this.options.host;
    const segments = host.segments();
    return segments.map((s, i) => ({
      baseOffset: s.baseOffset,
      endOffset: segments[i + 1]?.baseOffset ?? host.logEndOffset(),
      sizeBytes: s.sizeBytes,
      largestTimestampMs: s.largestTimestampMs(),
      firstTimestampMs: s.firstTimestampMs(),
    }));
  }
}
