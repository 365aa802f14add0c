/** Messages and shared-memory slots between the cleaner's executor and its worker (worker.ts). */
import type { ErrorCode } from '../../../common/errors';
import type { CleanJobResult, CleanedSegment } from './clean-job';

/** Int32 slots of the control SharedArrayBuffer. */
export const CONTROL_ABORT = 0;
export const CONTROL_ACK = 1;
export const CONTROL_ACK_OK = 2;
/** Never written: the worker sleeps by waiting on it (the throttle). */
export const CONTROL_SLEEP = 3;
export const CONTROL_SLOTS = 4;

export type WorkerReply =
  | { type: 'segment'; id: number; seq: number; segment: CleanedSegment }
  | { type: 'done'; id: number; result: CleanJobResult }
  | { type: 'aborted'; id: number }
  | { type: 'error'; id: number; code: ErrorCode; message: string };
