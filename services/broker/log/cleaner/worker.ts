/**
 * The cleaner's worker thread: runs clean-job.ts passes off the broker's event loop, one at a time.
 *
 * Protocol (executor.ts is the other side):
 *   main → worker   { type: 'job', id, job, control }   control: SharedArrayBuffer, Int32Array view
 *   worker → main   { type: 'segment', id, seq, segment }  a cleaned segment ready to swap in; the
 *                   worker then waits until control[ACK] reaches seq and reads control[ACK_OK]
 *   worker → main   { type: 'done', id, result } | { type: 'aborted', id } | { type: 'error', id, message }
 * control[ABORT] != 0 asks the pass to stop at the next batch (and wakes any wait).
 *
 * On Linux the worker lowers its own thread's scheduling priority to the lowest (nice CLEANER_NICE;
 * setpriority on a thread id affects that thread only): the broker's event loop and its fs
 * threads get the CPU first, and the cleaner uses what is left. Nice orders threads of the same
 * scheduling group only (with autogroups: the same session); it cannot keep other processes of
 * a busy machine from competing with the broker (docs/storage.md, Compaction, Measured).
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { basename } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { toTideError } from '../../../common/errors';
import { CleanAborted, runCleanJob, type CleanJob, type CleanedSegment } from './clean-job';
import { CONTROL_ABORT, CONTROL_ACK, CONTROL_ACK_OK, CONTROL_SLEEP, type WorkerReply } from './protocol';

interface JobMessage {
  type: 'job';
  id: number;
  job: CleanJob;
  control: SharedArrayBuffer;
}

function run(message: JobMessage): void {
  const port = parentPort!;
  const control = new Int32Array(message.control);
  const aborted = (): boolean => Atomics.load(control, CONTROL_ABORT) !== 0;
  const reply = (r: WorkerReply, transfer: ArrayBuffer[] = []): void => port.postMessage(r, transfer);
  const pass = runCleanJob(message.job, {
    aborted,
    nowMs: () => performance.now(),
    sleep: (ms) => void Atomics.wait(control, CONTROL_SLEEP, 0, ms),
  });
  try {
    let step = pass.next();
    let seq = 0;
    while (!step.done) {
      seq++;
      const segment: CleanedSegment = step.value;
      reply({ type: 'segment', id: message.id, seq, segment }, [
        segment.offsetIndex.buffer as ArrayBuffer,
        segment.timeIndex.buffer as ArrayBuffer,
      ]);
      for (let acked = Atomics.load(control, CONTROL_ACK); acked < seq && !aborted();) {
        Atomics.wait(control, CONTROL_ACK, acked, 1000);
        acked = Atomics.load(control, CONTROL_ACK);
      }
      step = pass.next(!aborted() && Atomics.load(control, CONTROL_ACK_OK) === 1);
    }
    reply({ type: 'done', id: message.id, result: step.value });
  } catch (err) {
    if (err instanceof CleanAborted) reply({ type: 'aborted', id: message.id });
    else {
      const e = toTideError(err);
      reply({ type: 'error', id: message.id, code: e.code, message: e.message });
    }
  }
}

/** Nice value of the cleaner thread (0 = normal, 19 = lowest priority): cleaning is background work. */
export const CLEANER_NICE = 19;

/** Lowers this thread's priority; /proc/thread-self names the thread's own id (Linux only). */
function lowerPriority(): void {
  try {
    setPriority(Number(basename(readlinkSync('/proc/thread-self'))), CLEANER_NICE);
  } catch {
    // not Linux, or not allowed: run at normal priority
  }
}

if (parentPort) {
  lowerPriority();
  parentPort.on('message', (message: JobMessage) => run(message));
}
