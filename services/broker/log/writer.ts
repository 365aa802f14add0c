/**
 * Group commit: the single writer of a partition log. Appends arriving while a write is in flight
 * queue up; each round takes everything queued and writes it with ONE FileHandle.writev per
 * segment touched (normally one). Never one fs call per batch.
 *
 * With flush policy 'sync' an append resolves only after an fdatasync that began once its bytes
 * were written. Syncs are pipelined with writes: while one fdatasync runs, the next rounds are
 * written to the page cache, and the next fdatasync covers all of them. A sync costs about as much
 * as the writes it covers, so overlapping the two roughly doubles what one partition absorbs
 * (serial write-then-sync rounds left the writer idle between rounds, waiting for the client).
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
import type { DiskFaults, DiskOp } from './disk-faults';
import { AssertionError, assert } from '../../common/assert';
import { TideError } from '../../common/errors';
import { storageError } from './fs-util';
import type { LogSegment } from './segment';

/** Counters of the fs calls made by a log's writer (tests and metrics). */
export interface LogIoStats {
  /** FileHandle.writev calls. */
  writevCalls: number;
  /** fdatasync calls on segment files, by the writer and by flushes. */
  datasyncCalls: number;
  bytesWritten: number;
  /** Group-commit rounds run. */
  commitRounds: number;
}

export function newLogIoStats(): LogIoStats {
  return { writevCalls: 0, datasyncCalls: 0, bytesWritten: 0, commitRounds: 0 };
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
  /** Called once the bytes are in the file, before any fsync: makes them visible to reads. */
  onWritten: () => void;
}

interface TaskOp extends Waiter {
  kind: 'task';
  run: () => Promise<void>;
}

type Op = WriteOp | TaskOp;

export interface GroupCommitWriterOptions {
  /** True when each round must fdatasync before its appends resolve (flushPolicy 'sync'). */
  syncEachRound: () => boolean;
  stats: LogIoStats;
  onFailure: (err: TideError) => void;
  /** Injected disk faults (tests); called before each writev and fdatasync. */
  faults?: DiskFaults;
  /** Whose log this writer writes, for the fault hook. */
  target?: { topic: string; partition: number };
}

export class GroupCommitWriter {
  private queue: Op[] = [];
  private running = false;
  private failed: TideError | undefined;
  private last: Promise<void> = Promise.resolve();
  /** Written ops that wait for the next fdatasync ('sync' policy only). */
  private unsynced: WriteOp[] = [];
  /** The fdatasync in flight, if any; at most one at a time. */
  private syncing: Promise<void> | undefined;

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
    return !this.running && this.queue.length === 0 && !this.syncing && this.unsynced.length === 0;
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
          if (this.failed) throw this.failed; // a pipelined sync failed
          const op = ops[i];
          if (op.kind === 'task') {
            // Tasks (rolls, flushes, checkpoints) see every earlier append durable and no sync
            // racing them on a file they may close.
            await this.syncsSettled();
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

  /** One writev (+ one fdatasync for 'sync') for ops[from, to), all to the same segment. */
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
    this.beforeIo('write', segment.logFile);
    const { bytesWritten } = await segment.file.writev(buffers, position);
    this.options.stats.writevCalls++;
    this.options.stats.bytesWritten += bytesWritten;
    if (bytesWritten !== bytes)
      throw storageError(`short write (${bytesWritten} of ${bytes} bytes)`, segment.logFile, position);
    segment.unsyncedBytes += bytes;
    for (let k = from; k < to; k++) ops[k].onWritten();
    // Behind a pending sync (the policy just changed), resolve in order after it.
    if (!this.options.syncEachRound() && !this.syncing && this.unsynced.length === 0) {
      for (let k = from; k < to; k++) ops[k].resolve();
      return;
    }
    for (let k = from; k < to; k++) this.unsynced.push(ops[k]);
    this.startSync();
  }

  /** Starts an fdatasync covering every op written so far, unless one is running already. */
  private startSync(): void {
    if (this.syncing || this.unsynced.length === 0 || this.failed) return;
    const covered = this.unsynced;
    this.unsynced = [];
    this.syncing = this.syncOps(covered).then(
      () => {
        this.syncing = undefined;
        for (const op of covered) op.resolve();
        this.startSync();
      },
      (err: unknown) => {
        this.syncing = undefined;
        this.fail(err, [...covered, ...this.unsynced]);
      },
    );
  }

  /** fdatasyncs each segment the ops wrote to (normally one; two across a roll). */
  private async syncOps(ops: WriteOp[]): Promise<void> {
    const segments = new Set(ops.map((op) => op.segment));
    for (const segment of segments) {
      // Writes that finish while this sync runs are not counted as synced: the next sync covers them.
      const pending = segment.unsyncedBytes;
      this.beforeIo('fsync', segment.logFile);
      await segment.file.datasync();
      segment.unsyncedBytes -= pending;
      this.options.stats.datasyncCalls++;
    }
  }

  private beforeIo(op: DiskOp, file: string): void {
    const { faults, target } = this.options;
    if (faults && target) faults.beforeIo(op, { ...target, file });
  }

  /** Resolves once no fdatasync is running and no written op waits for one. */
  private async syncsSettled(): Promise<void> {
    while (this.syncing) await this.syncing;
    if (this.failed) throw this.failed;
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
    const rest = [...this.unsynced, ...this.queue];
    this.unsynced = [];
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
