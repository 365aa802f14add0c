/**
 * Where cleaning passes run. WorkerExecutor (the broker's) runs them on one worker thread, off the
 * event loop; InlineExecutor runs the same code on the calling thread (blocking it: tests and tools
 * only). Both run one pass at a time and let the caller commit each cleaned segment before the
 * pass goes on.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { assert } from '../../../common/assert';
import { TideError } from '../../../common/errors';
import {
  CleanAborted,
  runCleanJob,
  type CleanJob,
  type CleanJobResult,
  type CleanedSegment,
} from './clean-job';
import {
  CONTROL_ABORT,
  CONTROL_ACK,
  CONTROL_ACK_OK,
  CONTROL_SLEEP,
  CONTROL_SLOTS,
  type WorkerReply,
} from './protocol';
import { entryCode, siblingEntry } from './ts-entry';

/** Swaps a cleaned segment in; resolves false when it could not (the pass then stops). */
export type CommitSegment = (segment: CleanedSegment) => Promise<boolean>;

/** A pass that was started. */
export interface RunningClean {
  /** The pass's result; rejects with CleanAborted after abort(), TideError on failure. */
  readonly done: Promise<CleanJobResult>;
  /** Asks the pass to stop at its next batch; its unfinished `.cleaned` file is deleted. */
  abort(): void;
}

/** Runs passes, one at a time. */
export interface CleanExecutor {
  start(job: CleanJob, commit: CommitSegment): RunningClean;
  close(): Promise<void>;
}

/** Runs passes on one worker thread (worker.ts), started on first use and unref'd while idle. */
export class WorkerExecutor implements CleanExecutor {
  private worker: Worker | undefined;
  private nextId = 1;
  private current:
    { id: number; onReply: (r: WorkerReply) => void; onExit: (err: Error) => void } | undefined;

  start(job: CleanJob, commit: CommitSegment): RunningClean {
    assert(this.current === undefined, 'the cleaner worker runs one pass at a time');
    const worker = this.spawn();
    worker.ref();
    const id = this.nextId++;
    const control = new SharedArrayBuffer(CONTROL_SLOTS * 4);
    const ctl = new Int32Array(control);
    let settle!: { resolve: (r: CleanJobResult) => void; reject: (e: Error) => void };
    const done = new Promise<CleanJobResult>((resolve, reject) => (settle = { resolve, reject }));
    const finish = (): void => {
      this.current = undefined;
      this.worker?.unref();
    };
    this.current = {
      id,
      onReply: (reply) => {
        if (reply.type === 'segment') {
          commit(reply.segment).then(
            (ok) => ack(ok, reply.seq),
            () => ack(false, reply.seq),
          );
          return;
        }
        finish();
        if (reply.type === 'done') settle.resolve(reply.result);
        else if (reply.type === 'aborted') settle.reject(new CleanAborted());
        else settle.reject(new TideError(reply.code, reply.message));
      },
      onExit: (err) => {
        finish();
        settle.reject(err);
      },
    };
    const ack = (ok: boolean, seq: number): void => {
      Atomics.store(ctl, CONTROL_ACK_OK, ok ? 1 : 0);
      Atomics.store(ctl, CONTROL_ACK, seq);
      Atomics.notify(ctl, CONTROL_ACK);
    };
    worker.postMessage({ type: 'job', id, job, control });
    return {
      done,
      abort: () => {
        Atomics.store(ctl, CONTROL_ABORT, 1);
        Atomics.notify(ctl, CONTROL_ACK);
        Atomics.notify(ctl, CONTROL_SLEEP);
      },
    };
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private spawn(): Worker {
    if (this.worker) return this.worker;
    const file = siblingEntry(__dirname, 'worker', __filename);
    const worker = new Worker(entryCode(file), { eval: true });
    worker.on('message', (reply: WorkerReply) => {
      if (this.current && reply.id === this.current.id) this.current.onReply(reply);
    });
    const lost = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      this.current?.onExit(err);
    };
    worker.on('error', (err) =>
      lost(new TideError('KAFKA_STORAGE_ERROR', `cleaner worker failed: ${err.message}`, { cause: err })),
    );
    worker.on('exit', (code) =>
      lost(new TideError('KAFKA_STORAGE_ERROR', `cleaner worker exited with code ${code}`)),
    );
    this.worker = worker;
    return worker;
  }
}

/** Runs passes on the calling thread (tests, tools): simple and deterministic, but it blocks. */
export class InlineExecutor implements CleanExecutor {
  start(job: CleanJob, commit: CommitSegment): RunningClean {
    let aborted = false;
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    const pass = runCleanJob(job, {
      aborted: () => aborted,
      nowMs: () => performance.now(),
      sleep: (ms) => void Atomics.wait(sleeper, 0, 0, ms),
    });
    const done = (async () => {
      await Promise.resolve(); // start after the caller has the handle, as the worker does
      let step = pass.next();
      while (!step.done) step = pass.next(!aborted && (await commit(step.value)));
      return step.value;
    })();
    return {
      done,
      abort: () => {
        aborted = true;
      },
    };
  }

  async close(): Promise<void> {}
}
