/**
 * Group commit: the single writer of a partition log. Appends arriving while a write is in flight
 * queue up; each round takes everything queued and writes it with ONE FileHandle.writev per
 * segment touched (normally one). Never one fs call per batch.
 *
 * With flush policy 'sync' a segment's file is opened with O_DSYNC (LogSegment.durableWrites): a
 * round's writev returns once the bytes are on the disk, and the round's appends resolve then. That is one trip through the libuv thread pool per round where a writev
 * followed by an fdatasync takes two, each ending in a wake-up of the event loop, which on a busy
 * machine is where the time goes (docs/performance.md, "The latency path"). The kernel work is the
 * same as an fdatasync's. Appends arriving meanwhile queue and go out together in the next round,
 * so one durable write covers all of them, as one fdatasync used to. A policy change reopens the
 * active segment to match (SegmentedLog.updateConfig); until that is done, a segment opened
 * without O_DSYNC is written and fdatasynced under 'sync', and one opened with it stays durable
 * under the other policies.
 *
 * Rounds for the page cache (flush policy 'os' or 'interval', a segment opened without O_DSYNC)
 * of up to inlineWrites.maxBytes are written on the event loop (fs.writevSync) while the inline
 * policy allows it: a trip through the thread pool costs an append 0.05–0.4 ms, the write itself
 * microseconds (inline-writes.ts).
 *
 * Ops run strictly in queue order: 'write' ops (bytes at a known position of a segment) and 'task'
 * ops (segment roll bookkeeping, explicit flushes) that need everything queued before them done.
 * A round starts in a microtask after the first op is queued, so appends made in the same tick
 * share it.
 *
 * An fs error is fatal for the log: every pending and later op fails with KAFKA_STORAGE_ERROR and
 * the owner is told (onFailure). What was written stays in the file; the next open's recovery
 * truncates anything torn.
 */
import * as fs from 'node:fs';
import type { DiskFaults, DiskOp } from './disk-faults';
import { AssertionError, assert } from '../../common/assert';
import { TideError } from '../../common/errors';
import { storageError } from './fs-util';
import type { InlineWrites } from './inline-writes';
import type { LogSegment } from './segment';

/** Counters of the fs calls made by a log's writer (tests and metrics). */
export interface LogIoStats {
  /** FileHandle.writev calls, durable ones included. */
  writevCalls: number;
  /** writev calls through an O_DSYNC handle ('sync' rounds): each durable when it returns. */
  durableWritevCalls: number;
  /** fdatasync calls on segment files, by the writer and by flushes. */
  datasyncCalls: number;
  bytesWritten: number;
  /** Group-commit rounds run. */
  commitRounds: number;
}

export function newLogIoStats(): LogIoStats {
  return { writevCalls: 0, durableWritevCalls: 0, datasyncCalls: 0, bytesWritten: 0, commitRounds: 0 };
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

interface WriteOp extends Waiter {
  kind: 'write';
  segment: LogSegment;
  buffer: Buffer;
  position: number;
  /** Called once the bytes are in the file (under 'sync': durable there): makes them visible to reads. */
  onWritten: () => void;
}

interface TaskOp extends Waiter {
  kind: 'task';
  run: () => Promise<void>;
}

type Op = WriteOp | TaskOp;

export interface GroupCommitWriterOptions {
  /** True when each round must be durable before its appends resolve (flushPolicy 'sync'). */
  syncEachRound: () => boolean;
  stats: LogIoStats;
  onFailure: (err: TideError) => void;
  /** Injected disk faults (tests); called before each writev and fdatasync (both before a durable writev). */
  faults?: DiskFaults;
  /** Whose log this writer writes, for the fault hook. */
  target?: { topic: string; partition: number };
  /** When small page-cache rounds may be written on the event loop; absent: never (always the pool). */
  inlineWrites?: InlineWrites;
}

export class GroupCommitWriter {
  private queue: Op[] = [];
  private running = false;
  private failed: TideError | undefined;
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly options: GroupCommitWriterOptions) {}

  get failure(): TideError | undefined {
    return this.failed;
  }

  /** Queues `buffer` for `segment` at `position` (its end once earlier writes are done). */
  write(segment: LogSegment, buffer: Buffer, position: number, onWritten: () => void): Promise<void> {
    return this.enqueue((waiter) => ({ kind: 'write', segment, buffer, position, onWritten, ...waiter }));
  }

  /** Queues work that must run after everything queued before it. */
  task(run: () => Promise<void>): Promise<void> {
    return this.enqueue((waiter) => ({ kind: 'task', run, ...waiter }));
  }

  /** Resolves once everything queued so far is done; rejects if the writer failed. */
  barrier(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    return this.last;
  }

  /** True when nothing is queued or in flight. */
  get idle(): boolean {
    return !this.running && this.queue.length === 0;
  }

  private enqueue(make: (waiter: Waiter) => Op): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    const promise = new Promise<void>((resolve, reject) => this.queue.push(make({ resolve, reject })));
    this.last = promise;
    promise.catch(() => undefined); // callers see the rejection; barrier() must not leak an unhandled one
    if (!this.running) {
      this.running = true;
      queueMicrotask(() => void this.drain());
    }
    return promise;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const ops = this.queue;
      this.queue = [];
      this.options.stats.commitRounds++;
      let i = 0;
      try {
        while (i < ops.length) {
          const op = ops[i];
          if (op.kind === 'task') {
            await op.run();
            op.resolve();
            i++;
            continue;
          }
          let j = i + 1;
          while (j < ops.length && ops[j].kind === 'write' && (ops[j] as WriteOp).segment === op.segment) j++;
          await this.writeGroup(ops as WriteOp[], i, j);
          i = j;
        }
      } catch (err) {
        this.fail(err, ops.slice(i));
        return;
      }
    }
    this.running = false;
  }

  /** One writev (durable for 'sync') for ops[from, to), all to the same segment. */
  private async writeGroup(ops: WriteOp[], from: number, to: number): Promise<void> {
    const segment = ops[from].segment;
    const position = ops[from].position;
    assert(
      position === segment.sizeBytes,
      `write at ${position} but ${segment.logFile} holds ${segment.sizeBytes} bytes`,
    );
    const buffers: Buffer[] = [];
    let bytes = 0;
    for (let k = from; k < to; k++) {
      assert(
        ops[k].position === position + bytes,
        `writes to ${segment.logFile} not contiguous at ${ops[k].position}`,
      );
      buffers.push(ops[k].buffer);
      bytes += ops[k].buffer.length;
    }
    const written = this.options.syncEachRound()
      ? await this.writeDurably(segment, buffers, position, bytes)
      : await this.writeToCache(segment, buffers, position, bytes);
    this.options.stats.writevCalls++;
    this.options.stats.bytesWritten += written;
    if (written !== bytes)
      throw storageError(`short write (${written} of ${bytes} bytes)`, segment.logFile, position);
    for (let k = from; k < to; k++) ops[k].onWritten();
    for (let k = from; k < to; k++) ops[k].resolve();
  }

  /**
   * A writev to the page cache; the bytes count as unsynced until a flush. Small rounds are
   * written on the event loop when the inline policy allows (inline-writes.ts says why and when).
   */
  private async writeToCache(
    segment: LogSegment,
    buffers: Buffer[],
    position: number,
    bytes: number,
  ): Promise<number> {
    this.beforeIo('write', segment.logFile);
    const inline = this.options.inlineWrites;
    let bytesWritten: number;
    // Never through an O_DSYNC descriptor: that write waits for the disk.
    if (!segment.durableWrites && inline?.allows(bytes)) {
      const started = performance.now();
      bytesWritten = fs.writevSync(segment.file.fd, buffers, position);
      inline.took(performance.now() - started, segment.logFile);
    } else ({ bytesWritten } = await segment.file.writev(buffers, position));
    segment.unsyncedBytes += bytesWritten;
    return bytesWritten;
  }

  /** A writev that returns once the bytes are on the disk: O_DSYNC, or writev + fdatasync. */
  private async writeDurably(
    segment: LogSegment,
    buffers: Buffer[],
    position: number,
    bytes: number,
  ): Promise<number> {
    if (!segment.durableWrites) {
      // Opened under another policy (until updateConfig has reopened it): two trips.
      const written = await this.writeToCache(segment, buffers, position, bytes);
      await this.datasync(segment);
      return written;
    }
    // Written before a change from another policy: O_DSYNC makes only its own writes durable.
    if (segment.unsyncedBytes > 0) await this.datasync(segment);
    // The durable write is both a write and a sync: a fault of either kind fails it.
    this.beforeIo('write', segment.logFile);
    this.beforeIo('fsync', segment.logFile);
    const { bytesWritten } = await segment.file.writev(buffers, position);
    this.options.stats.durableWritevCalls++;
    return bytesWritten;
  }

  private async datasync(segment: LogSegment): Promise<void> {
    this.beforeIo('fsync', segment.logFile);
    await segment.sync();
    this.options.stats.datasyncCalls++;
  }

  private beforeIo(op: DiskOp, file: string): void {
    const { faults, target } = this.options;
    if (faults && target) faults.beforeIo(op, { ...target, file });
  }

  private fail(err: unknown, pending: Op[]): void {
    const error =
      err instanceof TideError
        ? err
        : storageError(
            `write failed: ${(err as Error).message ?? String(err)}`,
            pending[0]?.kind === 'write' ? pending[0].segment.logFile : 'log',
            undefined,
            err,
          );
    if (this.failed) {
      for (const op of pending) op.reject(this.failed);
      return;
    }
    this.failed = error;
    const rest = this.queue;
    this.queue = [];
    this.running = false;
    for (const op of [...pending, ...rest]) op.reject(error);
    this.options.onFailure(error);
    // A failed assertion is a bug: after failing the callers, let it crash the process.
    if (err instanceof AssertionError)
      queueMicrotask(() => {
        throw err;
      });
  }
}
