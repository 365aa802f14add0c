/**
 * LogCleaner: compacts every compacted partition log of a LogManager (Kafka's LogCleaner and
 * LogCleanerManager). On a timer it picks the filthiest log (largest dirty ratio above its
 * min.cleanable.dirty.ratio, or one whose tombstones reached their delete horizon), plans a pass
 * on the main thread (../compaction.ts: cheap, from segment metadata), runs it on a worker thread
 * (clean-job.ts via executor.ts), and swaps each cleaned segment in on the main thread as it
 * arrives. One pass runs at a time; each log is cleaned at most once per round.
 *
 * The cleaner knows nothing of leaders: it cleans every replica it holds, leaders and followers
 * alike, each independently, never at or above the high watermark `maxOffsetFor` reports.
 * Replicas may therefore hold different (equally valid) compacted histories.
 *
 * A pass that fails (a corrupt segment, a failed swap) marks the partition uncleanable until the
 * broker restarts; counters in `stats` show it. Metrics are plain counters here (a Prometheus
 * exporter reads them).
 */
import { performance } from 'node:perf_hooks';
import type { Clock, Timer } from '../../../common/clock';
import { TideError, toTideError } from '../../../common/errors';
import type { Logger } from '../../../common/logger';
import type { PartitionLog } from '../interface';
import type { SegmentedLog } from '../partition-log';
import { CleanAborted, type CleanJobResult, type CleanedSegment } from './clean-job';
import { WorkerExecutor, type CleanExecutor } from './executor';
import { DEFAULT_LOAD_FACTOR } from './offset-map';

const MIB = 1024 * 1024;

/** Broker-wide cleaner settings (Kafka's log.cleaner.* keys). */
export interface CleanerConfig {
  /** log.cleaner.enable */
  enabled: boolean;
  /** log.cleaner.dedupe.buffer.size: memory of the key map of a pass (24 bytes per key). */
  dedupeBufferBytes: number;
  /** log.cleaner.io.buffer.load.factor: how full the key map may get. */
  dedupeLoadFactor: number;
  /** log.cleaner.io.max.bytes.per.second: read + write rate of the cleaner; <= 0 = no limit. */
  ioBytesPerSecond: number;
  /** log.cleaner.io.buffer.size: size of each sequential read. */
  ioBufferBytes: number;
  /**
   * log.cleaner.backoff.ms: how often the cleaner looks for work. Looking costs no I/O (segment
   * metadata only), so Tide checks every 5 s where Kafka waits 15 s.
   */
  backoffMs: number;
}

/** Defaults of the broker-wide cleaner settings (docs/storage.md, Compaction). */
export const DEFAULT_CLEANER_CONFIG: Readonly<CleanerConfig> = Object.freeze({
  enabled: true,
  dedupeBufferBytes: 32 * MIB,
  dedupeLoadFactor: DEFAULT_LOAD_FACTOR,
  ioBytesPerSecond: -1,
  ioBufferBytes: MIB,
  backoffMs: 5_000,
});

/** Counters since the broker started (a Prometheus exporter reads them). */
export interface CleanerStats {
  /** Passes finished. */
  passes: number;
  /** Passes stopped before the end (log closed or changed under them). */
  passesAborted: number;
  /** Passes that failed; their partitions are skipped until restart. */
  errors: number;
  bytesRead: number;
  bytesWritten: number;
  /** Bytes of segments rewritten (input of the clean phase). */
  bytesCleaned: number;
  recordsRead: number;
  recordsRemoved: number;
  tombstonesRemoved: number;
  segmentsCleaned: number;
  /** Wall time spent in passes (ms). */
  cleanTimeMs: number;
  /** Time passes slept in the I/O throttle (ms). */
  throttledMs: number;
}

/** What one pass did (also logged at info level as 'log cleaned'). */
export interface PassSummary extends CleanJobResult {
  topic: string;
  partition: number;
  dirtyRatioBefore: number;
  /** Bytes read + written per second of the pass, in MB/s (10^6). */
  ioMBPerSec: number;
}

/** What the LogManager gives its cleaner. */
export interface LogCleanerOptions {
  clock: Clock;
  logger: Logger;
  /** The logs to keep clean (the LogManager's open logs). */
  logs: () => Iterable<SegmentedLog>;
  /** The high watermark of a log, when the broker knows one: nothing at or above it is cleaned. */
  maxOffsetFor?: (log: PartitionLog) => number | undefined;
  config?: Partial<CleanerConfig>;
  /** Where passes run (default: a worker thread). */
  executor?: CleanExecutor;
}

function keyOf(log: PartitionLog): string {
  return `${log.topic}-${log.partition}`;
}

/** The cleaner of one data dir (see the header). */
export class LogCleaner {
  readonly config: Readonly<CleanerConfig>;
  readonly stats: CleanerStats = {
    passes: 0,
    passesAborted: 0,
    errors: 0,
    bytesRead: 0,
    bytesWritten: 0,
    bytesCleaned: 0,
    recordsRead: 0,
    recordsRemoved: 0,
    tombstonesRemoved: 0,
    segmentsCleaned: 0,
    cleanTimeMs: 0,
    throttledMs: 0,
  };
  /** Partitions skipped after a failed pass, with the error. */
  readonly uncleanable = new Map<string, string>();

  private readonly logger: Logger;
  private readonly executor: CleanExecutor;
  private timer: Timer | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private roundRunning = false;
  private closed = false;

  constructor(private readonly options: LogCleanerOptions) {
    this.config = { ...DEFAULT_CLEANER_CONFIG, ...options.config };
    this.logger = options.logger.child({ component: 'log-cleaner' });
    this.executor = options.executor ?? new WorkerExecutor();
  }

  /** Starts the timer (when enabled). */
  start(): void {
    if (!this.config.enabled || this.timer || this.closed) return;
    this.timer = this.options.clock.setInterval(() => void this.runRound(), this.config.backoffMs);
  }

  /** Stops the timer and the running pass, and the worker. */
  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    this.timer = undefined;
    for (const log of this.options.logs()) await log.compaction.abortPass();
    await this.chain.catch(() => undefined);
    await this.executor.close();
  }

  /** Dirty ratio of every compacted log (what describe shows). */
  dirtyRatios(): Array<{ topic: string; partition: number; dirtyRatio: number }> {
    const out: Array<{ topic: string; partition: number; dirtyRatio: number }> = [];
    for (const log of this.options.logs()) {
      if (log.cleanupPolicy.compact)
        out.push({ topic: log.topic, partition: log.partition, dirtyRatio: log.compaction.dirtyRatio() });
    }
    return out;
  }

  /**
   * One round: cleans, filthiest first, every log that needs it, each at most once. Returns the
   * passes made. The timer runs this; a round already running makes it a no-op.
   */
  async runRound(): Promise<PassSummary[]> {
    if (this.roundRunning || this.closed) return [];
    this.roundRunning = true;
    const done: PassSummary[] = [];
    const visited = new Set<string>();
    try {
      for (;;) {
        const next = this.filthiest(visited);
        if (!next) break;
        visited.add(keyOf(next));
        try {
          const pass = await this.clean(next);
          if (pass) done.push(pass);
        } catch {
          // counted and logged by clean(); the round goes on with the other logs
        }
      }
    } finally {
      this.roundRunning = false;
    }
    return done;
  }

  /**
   * Cleans one log now if it needs it (or whatever is cleanable, with force). Resolves the pass
   * summary, undefined when nothing was done or the pass was aborted; rejects when it failed.
   */
  clean(log: SegmentedLog, options: { force?: boolean } = {}): Promise<PassSummary | undefined> {
    const run = this.chain.then(() => this.cleanNow(log, options.force === true));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private filthiest(visited: Set<string>): SegmentedLog | undefined {
    const nowMs = this.options.clock.nowMs();
    let best: { log: SegmentedLog; ratio: number } | undefined;
    for (const log of this.options.logs()) {
      const key = keyOf(log);
      if (visited.has(key) || this.uncleanable.has(key) || !log.cleanupPolicy.compact) continue;
      if (log.compaction.passRunning) continue;
      const c = log.compaction.cleanable(nowMs, this.options.maxOffsetFor?.(log));
      if (c.cleanableCount === 0) continue;
      const dirtyEnough =
        c.dirtyBytes > 0 && (c.dirtyRatio > log.currentConfig.minCleanableDirtyRatio || c.overdueMs > 0);
      if (!dirtyEnough && !log.compaction.tombstonesDue(nowMs)) continue;
      // Tombstone-only passes rank after every log with dirty records due.
      const ratio = dirtyEnough ? c.dirtyRatio : -1;
      if (!best || ratio > best.ratio) best = { log, ratio };
    }
    return best?.log;
  }

  private async cleanNow(log: SegmentedLog, force: boolean): Promise<PassSummary | undefined> {
    if (this.closed || !log.cleanupPolicy.compact) return undefined;
    const nowMs = this.options.clock.nowMs();
    const planned = log.compaction.plan({
      nowMs,
      maxOffset: this.options.maxOffsetFor?.(log),
      dedupeBufferBytes: this.config.dedupeBufferBytes,
      dedupeLoadFactor: this.config.dedupeLoadFactor,
      ioBytesPerSecond: this.config.ioBytesPerSecond,
      ioBufferBytes: this.config.ioBufferBytes,
    });
    if (!planned) return undefined;
    const c = planned.cleanable;
    const due =
      (c.dirtyBytes > 0 && (c.dirtyRatio > log.currentConfig.minCleanableDirtyRatio || c.overdueMs > 0)) ||
      log.compaction.tombstonesDue(nowMs);
    if (!force && !due) return undefined;

    const key = keyOf(log);
    let commitError: unknown;
    const commit = async (segment: CleanedSegment): Promise<boolean> => {
      try {
        return await log.compaction.commitSegment(segment);
      } catch (err) {
        commitError = err;
        return false;
      }
    };
    const started = performance.now();
    const running = this.executor.start(planned.job, commit);
    // The checkpoint is part of the pass: closing the log waits for it too.
    const done = running.done.then(async (result) => {
      await log.compaction.finishPass(result);
      return result;
    });
    // Set when the log stops the pass (close, delete). The worker then discards the segment it
    // is writing, which may be the one a commit is renaming at that moment: that commit's error
    // (ENOENT) is part of the abort, not a failure of the partition.
    let abortRequested = false;
    const abort = (): void => {
      abortRequested = true;
      running.abort();
    };
    if (!log.compaction.beginPass({ abort, done })) {
      running.abort();
      await done.catch(() => undefined);
      return undefined;
    }
    this.logger.info(
      {
        topic: log.topic,
        partition: log.partition,
        dirtyRatio: Number(c.dirtyRatio.toFixed(4)),
        ...(c.overdueMs > 0 ? { maxCompactionLagOverdueMs: c.overdueMs } : {}),
        firstDirtyOffset: c.firstDirtyOffset,
        firstUncleanableOffset: c.firstUncleanableOffset,
        segments: planned.job.segments.length,
      },
      'cleaning log',
    );
    try {
      const result = await done;
      const elapsedMs = performance.now() - started;
      const s = result.stats;
      this.stats.passes++;
      this.stats.bytesRead += s.bytesRead;
      this.stats.bytesWritten += s.bytesWritten;
      this.stats.bytesCleaned += s.bytesCleaned;
      this.stats.recordsRead += s.recordsRead;
      this.stats.recordsRemoved += s.recordsRead - s.recordsKept;
      this.stats.tombstonesRemoved += s.tombstonesDropped;
      this.stats.segmentsCleaned += result.segmentsCleaned;
      this.stats.cleanTimeMs += elapsedMs;
      this.stats.throttledMs += s.throttledMs;
      const summary: PassSummary = {
        ...result,
        topic: log.topic,
        partition: log.partition,
        dirtyRatioBefore: c.dirtyRatio,
        ioMBPerSec: elapsedMs > 0 ? (s.bytesRead + s.bytesWritten) / 1e6 / (elapsedMs / 1000) : 0,
      };
      this.logger.info(
        {
          topic: log.topic,
          partition: log.partition,
          dirtyRatioBefore: Number(c.dirtyRatio.toFixed(4)),
          endOffset: result.endOffset,
          segments: result.segmentsCleaned,
          bytesRead: s.bytesRead,
          bytesWritten: s.bytesWritten,
          bytesCleaned: s.bytesCleaned,
          recordsRead: s.recordsRead,
          recordsKept: s.recordsKept,
          tombstonesDropped: s.tombstonesDropped,
          mapUtilization: Number(s.mapUtilization.toFixed(4)),
          throttledMs: Math.round(s.throttledMs),
          elapsedMs: Math.round(elapsedMs),
          ioMBPerSec: Number(summary.ioMBPerSec.toFixed(1)),
        },
        'log cleaned',
      );
      return summary;
    } catch (err) {
      const failure = abortRequested && err instanceof CleanAborted ? err : (commitError ?? err);
      if (failure instanceof CleanAborted) {
        this.stats.passesAborted++;
        return undefined;
      }
      const error = toTideError(failure);
      this.stats.errors++;
      this.uncleanable.set(key, error.message);
      this.logger.error(
        { err: error, topic: log.topic, partition: log.partition },
        'cleaning failed; partition skipped until restart',
      );
      throw error instanceof TideError ? error : new TideError('KAFKA_STORAGE_ERROR', String(failure));
    }
  }
}
