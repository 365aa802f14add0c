/**
 * LogManager: every partition log in one broker data dir. Loads the partition folders at open
 * (a folder that fails to load is reported and skipped, the others still open), creates and deletes
 * logs, runs the retention timer and the interval-flush timer (both on the injected Clock), runs
 * the log cleaner over the compacted logs (cleaner/log-cleaner.ts), and holds the data dir lock
 * (dir-lock.ts) from open() to closeAll().
 */
import type { DiskFaults, LogFailureListener } from './disk-faults';
import type { InlineWrites } from './inline-writes';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Clock, Timer } from '../../common/clock';
import { TideError, toTideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { validateLogConfig } from './config';
import { DataDirLock } from './dir-lock';
import { LogCleaner, type CleanerConfig } from './cleaner/log-cleaner';
import type { CleanExecutor } from './cleaner/executor';
import type { LogConfig, PartitionLog } from './interface';
import { parsePartitionDirName, partitionDirName } from './names';
import { SegmentedLog } from './partition-log';

export const DEFAULT_RETENTION_CHECK_INTERVAL_MS = 5 * 60 * 1000;
export const DEFAULT_FLUSH_CHECK_INTERVAL_MS = 100;
export const DEFAULT_LOAD_CONCURRENCY = 16;

const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

export interface LogManagerOptions {
  dataDir: string;
  clock: Clock;
  logger: Logger;
  /** Config for logs created without one and for logs found on disk (unless configFor says). */
  defaultConfig: LogConfig;
  /** Config of a topic found on disk at open; undefined falls back to defaultConfig. */
  configFor?: (topic: string) => LogConfig | undefined;
  /** How often retention runs over every log (default 5 minutes). */
  retentionCheckIntervalMs?: number;
  /** How often logs with flushPolicy 'interval' are checked for a due fsync (default 100 ms). */
  flushCheckIntervalMs?: number;
  /** Partitions loaded at the same time by open() (default 16: loading is mostly fs calls, which the thread pool runs side by side). */
  loadConcurrency?: number;
  /**
   * The offset retention must not delete past for a log (its high watermark), if the broker knows
   * one; see PartitionLog.applyRetention's maxOffset. The cleaner never cleans at or above it either.
   */
  retentionMaxOffset?: (log: PartitionLog) => number | undefined;
  /** Log cleaner settings (Kafka's log.cleaner.*; defaults in cleaner/log-cleaner.ts). */
  cleaner?: Partial<CleanerConfig> & { executor?: CleanExecutor };
  /** Injected disk faults for every log (tests only); see disk-faults.ts. */
  faults?: DiskFaults;
  /** When small page-cache writes of every log go on the event loop (inline-writes.ts); absent: never. */
  inlineWrites?: InlineWrites;
  /** Told once when a log fails (a write or fsync error): the replica is offline until reopened. */
  onLogFailure?: LogFailureListener;
}

/** A partition folder that open() could not load. */
export interface PartitionLoadFailure {
  topic: string;
  partition: number;
  dir: string;
  error: TideError;
}

function key(topic: string, partition: number): string {
  return partitionDirName(topic, partition);
}

export class LogManager {
  private readonly logs = new Map<string, SegmentedLog>();
  private readonly opening = new Map<string, Promise<SegmentedLog>>();
  private readonly failures = new Map<string, PartitionLoadFailure>();
  private readonly logger: Logger;
  private lock: DataDirLock | undefined;
  private logCleaner: LogCleaner | undefined;
  private timers: Timer[] = [];
  private retentionRunning = false;
  private state: 'new' | 'open' | 'closed' = 'new';

  constructor(private readonly options: LogManagerOptions) {
    validateLogConfig(options.defaultConfig);
    this.logger = options.logger.child({ component: 'log-manager' });
  }

  get dataDir(): string {
    return this.options.dataDir;
  }

  /** The log cleaner (compaction of compacted logs); undefined before open(). */
  get cleaner(): LogCleaner | undefined {
    return this.logCleaner;
  }

  /** Partition folders that failed to load at open(), with why. */
  get loadFailures(): PartitionLoadFailure[] {
    return [...this.failures.values()];
  }

  /**
   * Locks the data dir, loads every `<topic>-<partition>` folder in it and starts the timers.
   * Throws KAFKA_STORAGE_ERROR when another broker holds the dir.
   */
  async open(): Promise<void> {
    if (this.state !== 'new') throw new TideError('KAFKA_STORAGE_ERROR', 'LogManager.open() called twice');
    this.lock = await DataDirLock.acquire(this.options.dataDir, this.logger, this.options.clock.nowMs());
    this.state = 'open';
    const entries = await fs.readdir(this.options.dataDir, { withFileTypes: true });
    const folders = entries
      .filter((e) => e.isDirectory())
      .map((e) => ({ name: e.name, parsed: parsePartitionDirName(e.name) }));
    for (const f of folders)
      if (!f.parsed)
        this.logger.warn(
          { dir: path.join(this.options.dataDir, f.name) },
          'ignoring folder that is not <topic>-<partition>',
        );
    const todo = folders.flatMap((f) => (f.parsed ? [f.parsed] : []));
    const workers = Array.from(
      { length: Math.max(1, this.options.loadConcurrency ?? DEFAULT_LOAD_CONCURRENCY) },
      async () => {
        for (let next = todo.shift(); next; next = todo.shift())
          await this.loadFound(next.topic, next.partition);
      },
    );
    await Promise.all(workers);
    const { clock } = this.options;
    this.timers.push(
      clock.setInterval(
        () => void this.runRetention(),
        this.options.retentionCheckIntervalMs ?? DEFAULT_RETENTION_CHECK_INTERVAL_MS,
      ),
    );
    this.timers.push(
      clock.setInterval(
        () => this.flushDue(),
        this.options.flushCheckIntervalMs ?? DEFAULT_FLUSH_CHECK_INTERVAL_MS,
      ),
    );
    const { executor, ...cleanerConfig } = this.options.cleaner ?? {};
    this.logCleaner = new LogCleaner({
      clock,
      logger: this.logger,
      logs: () => this.logs.values(),
      maxOffsetFor: this.options.retentionMaxOffset,
      config: cleanerConfig,
      executor,
    });
    this.logCleaner.start();
    this.logger.info(
      { dataDir: this.options.dataDir, partitions: this.logs.size, failed: this.failures.size },
      'log manager open',
    );
  }

  private async loadFound(topic: string, partition: number): Promise<void> {
    const config = this.options.configFor?.(topic) ?? this.options.defaultConfig;
    try {
      await this.openLog(topic, partition, config);
    } catch (err) {
      const dir = path.join(this.options.dataDir, partitionDirName(topic, partition));
      const error = toTideError(err);
      this.failures.set(key(topic, partition), { topic, partition, dir, error });
      this.logger.error({ err, dir, topic, partition }, 'failed to load partition log; it stays offline');
    }
  }

  /**
   * The log of topic-partition, created if it does not exist. With `config`, an existing log takes
   * it (updateConfig); without, new logs use defaultConfig. Concurrent calls share one open.
   * Throws the load error for a partition that failed to load at open().
   */
  async getOrCreate(topic: string, partition: number, config?: LogConfig): Promise<PartitionLog> {
    this.checkOpen();
    if (!TOPIC_NAME.test(topic) || topic === '.' || topic === '..')
      throw new TideError('INVALID_TOPIC', `invalid topic name ${JSON.stringify(topic)}`);
    if (!Number.isSafeInteger(partition) || partition < 0)
      throw new TideError('INVALID_REQUEST', `invalid partition ${partition}`);
    const k = key(topic, partition);
    const failure = this.failures.get(k);
    if (failure) throw failure.error;
    // No await before openLog() registers the open: concurrent callers must find it.
    const pending = this.logs.get(k) ?? this.opening.get(k);
    if (pending) {
      const existing = await pending;
      if (config) existing.updateConfig(config);
      return existing;
    }
    return this.openLog(topic, partition, config ?? this.options.defaultConfig);
  }

  private openLog(topic: string, partition: number, config: LogConfig): Promise<SegmentedLog> {
    const k = key(topic, partition);
    const pending = SegmentedLog.open({
      dataDir: this.options.dataDir,
      topic,
      partition,
      config,
      clock: this.options.clock,
      logger: this.options.logger,
      faults: this.options.faults,
      inlineWrites: this.options.inlineWrites,
      onFailure: this.options.onLogFailure,
    });
    this.opening.set(k, pending);
    return pending.then(
      (log) => {
        this.opening.delete(k);
        this.logs.set(k, log);
        return log;
      },
      (err: unknown) => {
        this.opening.delete(k);
        throw err;
      },
    );
  }

  /** The log if it is open here. */
  get(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(key(topic, partition));
  }

  /** Closes the log and removes its folder (also the folder of one that failed to load). */
  async delete(topic: string, partition: number): Promise<boolean> {
    this.checkOpen();
    const k = key(topic, partition);
    const log = this.logs.get(k) ?? (await this.opening.get(k)?.catch(() => undefined));
    this.logs.delete(k);
    if (log) {
      await log.delete();
      return true;
    }
    if (this.failures.delete(k)) {
      await fs.rm(path.join(this.options.dataDir, partitionDirName(topic, partition)), {
        recursive: true,
        force: true,
      });
      return true;
    }
    return false;
  }

  all(): PartitionLog[] {
    return [...this.logs.values()];
  }

  /** Stops the timers, closes every log (each leaves its clean-shutdown marker), releases the lock. */
  async closeAll(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'closed';
    for (const timer of this.timers) timer.cancel();
    this.timers = [];
    await this.logCleaner?.close();
    await Promise.allSettled([...this.opening.values()]);
    const results = await Promise.allSettled([...this.logs.values()].map((log) => log.close()));
    for (const r of results)
      if (r.status === 'rejected') this.logger.error({ err: r.reason }, 'failed to close a partition log');
    this.logs.clear();
    await this.lock?.release();
    this.logger.info('log manager closed');
  }

  /** One retention pass over every log (the timer's job); returns the bytes deleted. */
  async runRetention(): Promise<number> {
    if (this.retentionRunning || this.state !== 'open') return 0;
    this.retentionRunning = true;
    let bytes = 0;
    try {
      for (const log of [...this.logs.values()]) {
        try {
          const maxOffset = this.options.retentionMaxOffset?.(log);
          bytes += await log.applyRetention(this.options.clock.nowMs(), { maxOffset });
        } catch (err) {
          this.logger.error({ err, topic: log.topic, partition: log.partition }, 'retention failed');
        }
      }
    } finally {
      this.retentionRunning = false;
    }
    return bytes;
  }

  /** Starts the fsync of every 'interval' log whose flushIntervalMs has passed (the flush timer's job). */
  flushDue(): void {
    const nowMs = this.options.clock.nowMs();
    for (const log of this.logs.values()) log.flushIfDue(nowMs);
  }

  private checkOpen(): void {
    if (this.state !== 'open')
      throw new TideError(
        'KAFKA_STORAGE_ERROR',
        `log manager for ${this.options.dataDir} is ${this.state === 'new' ? 'not open yet' : 'closed'}`,
      );
  }
}
