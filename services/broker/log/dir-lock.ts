/**
 * The data dir lock: `<dataDir>/.lock`, so two brokers never open the same data dir.
 *
 * File content (JSON, one line): {"pid": <number>, "hostname": "<string>", "acquiredAtMs": <number>}
 *
 * Created atomically with its content (written to a temp file, then hard-linked to `.lock`, which
 * fails if it exists). An existing lock is stale (and taken over, with a warning) when it names
 * this host and a process that no longer exists, or this very process id while this process does
 * not hold it (a restarted container reuses pid 1). A lock naming another host is never taken
 * over: remove it by hand once that broker is gone. Within one process, a second LogManager on the
 * same dir is refused through a process-wide set (a lock file cannot tell two owners in one pid).
 */
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { DATA_DIR_LOCK_FILE } from './names';

/** Real paths of the data dirs locked by this process (a process-wide fact, hence module state). */
const heldByThisProcess = new Set<string>();

interface LockOwner {
  pid: number;
  hostname: string;
  acquiredAtMs: number;
}

/**
 * False for a pid that is gone or a zombie (state Z in /proc/<pid>/stat: SIGKILLed, not yet reaped
 * by its parent), which holds nothing. The same check as services/common/process-alive.ts, kept
 * here because the storage engine imports nothing of common beyond records, errors and the like.
 */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return true; // no /proc (not Linux): kill(pid, 0) is all there is
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

export class DataDirLock {
  private released = false;

  private constructor(
    readonly dataDir: string,
    private readonly key: string,
    private readonly file: string,
  ) {}

  /** Takes the lock or throws KAFKA_STORAGE_ERROR saying who holds it. */
  static async acquire(dataDir: string, logger: Logger, nowMs: number): Promise<DataDirLock> {
    await fs.mkdir(dataDir, { recursive: true });
    const key = await fs.realpath(dataDir);
    const file = path.join(dataDir, DATA_DIR_LOCK_FILE);
    if (heldByThisProcess.has(key)) {
      throw new TideError('KAFKA_STORAGE_ERROR', `data dir ${dataDir} is already open in this process`, {
        retriable: false,
      });
    }
    const me: LockOwner = { pid: process.pid, hostname: os.hostname(), acquiredAtMs: nowMs };
    const content = JSON.stringify(me) + '\n';
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, content);
    try {
      await fs.link(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = await readOwner(file);
      const stale =
        owner !== undefined &&
        owner.hostname === me.hostname &&
        (owner.pid === process.pid || !processExists(owner.pid));
      if (!stale) {
        const who = owner ? `pid ${owner.pid} on ${owner.hostname}` : 'an unreadable lock file';
        throw new TideError(
          'KAFKA_STORAGE_ERROR',
          `data dir ${dataDir} is locked by ${who} (${file}); another broker is using it`,
          { retriable: false },
        );
      }
      logger.warn({ file, previousOwner: owner }, 'taking over a stale data dir lock');
      await fs.rename(tmp, file);
    } finally {
      await fs.rm(tmp, { force: true });
    }
    heldByThisProcess.add(key);
    return new DataDirLock(dataDir, key, file);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    heldByThisProcess.delete(this.key);
    await fs.rm(this.file, { force: true });
  }
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && typeof parsed.hostname === 'string') return parsed as LockOwner;
  } catch {
    // unreadable: treated as held
  }
  return undefined;
}
