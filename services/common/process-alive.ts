/**
 * Whether a process id names a running process, for lock files that record their holder's pid.
 * `kill(pid, 0)` succeeds for a zombie too: a process killed with SIGKILL stays in the process
 * table (state Z) until its parent reaps it, so a restart right after a crash used to find its
 * own lock "in use" by the dead process. On Linux the state in /proc/<pid>/stat tells; elsewhere
 * only kill(pid, 0) is asked.
 */
import * as fs from 'fs';

/** False for a pid that does not exist, is a zombie (Z) or is dead (X); true otherwise. */
export function processIsRunning(
  pid: number,
  readStat: (file: string) => string = (file) => fs.readFileSync(file, 'utf8'),
): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = processState(pid, readStat);
  return state !== 'Z' && state !== 'X';
}

/** The one-letter state of /proc/<pid>/stat, or undefined when it cannot be read. */
export function processState(pid: number, readStat: (file: string) => string): string | undefined {
  let stat: string;
  try {
    stat = readStat(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // "pid (comm) S ...": comm may hold spaces and parentheses, so the state follows the last ')'.
  const close = stat.lastIndexOf(')');
  return close < 0 ? undefined : stat.slice(close + 2, close + 3) || undefined;
}
