/**
 * The storage engine's disk-fault seam: a hook the writer calls before each segment write and
 * fdatasync, which may throw the error the disk would (ENOSPC, EIO). Production passes none; fault
 * tests pass one (the broker's file-driven injector, or a scripted one in unit tests). Whatever it
 * throws takes the same path as a real failure of the call: the log goes 'failed' (every later
 * operation fails with KAFKA_STORAGE_ERROR), nothing in the failed round is acknowledged, and
 * LogFailureListener hears of it so the broker can take the replica offline.
 */

/** The disk operations a fault can hit. */
export type DiskOp = 'write' | 'fsync';

/** Where an operation is about to happen. */
export interface DiskOpTarget {
  topic: string;
  partition: number;
  /** The segment file. */
  file: string;
}

export interface DiskFaults {
  /** Throws (an Error with an errno `code`) to make the coming `op` on `target` fail. */
  beforeIo(op: DiskOp, target: DiskOpTarget): void;
}

/** Told once when a partition log fails (goes offline until reopened). */
export type LogFailureListener = (topic: string, partition: number, error: Error) => void;

/** An Error shaped like the one Node's fs raises for `code` (ENOSPC, EIO...). */
export function diskError(code: string, op: DiskOp, file: string): NodeJS.ErrnoException {
  const messages: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EIO: 'i/o error',
  };
  const err: NodeJS.ErrnoException = new Error(
    `${code}: ${messages[code] ?? 'injected disk fault'}, ${op} '${file}'`,
  );
  err.code = code;
  err.syscall = op === 'fsync' ? 'fdatasync' : 'writev';
  err.path = file;
  return err;
}
