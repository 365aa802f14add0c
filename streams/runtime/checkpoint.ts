/**
 * The checkpoint file of a task's persistent stores: `<stateDir>/<taskId>/.checkpoint`, JSON
 * `{ "<changelog topic>": <next offset> }`. It records which changelog offset the local files
 * contain, so a restart restores only the tail. Written (atomically: temp file, then rename) after
 * the stores' files are flushed and the changelog records up to that offset are acknowledged;
 * a missing or unreadable file means "restore from the beginning".
 *
 * The task's stream time at the checkpoint is kept under `"@streamTimeMs"` ('@' is never in a
 * topic name), so a restart that reads nothing from the changelogs still knows which windows
 * have closed.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Checkpoint = Record<string, number>;

/** The checkpoint entry holding the task's stream time (not a topic: '@' is not allowed in one). */
export const STREAM_TIME_KEY = '@streamTimeMs';

/** The stream time a checkpoint recorded; -1 when it has none. */
export function checkpointStreamTime(checkpoint: Checkpoint): number {
  return checkpoint[STREAM_TIME_KEY] ?? -1;
}

export function checkpointPath(stateDir: string, taskId: string): string {
  return join(stateDir, taskId, '.checkpoint');
}

export function readCheckpoint(stateDir: string, taskId: string): Checkpoint {
  try {
    const parsed = JSON.parse(readFileSync(checkpointPath(stateDir, taskId), 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return {};
    const out: Checkpoint = {};
    for (const [topic, offset] of Object.entries(parsed)) {
      if (Number.isInteger(offset) && (offset as number) >= 0) out[topic] = offset as number;
    }
    return out;
  } catch {
    return {};
  }
}

export function writeCheckpoint(stateDir: string, taskId: string, checkpoint: Checkpoint): void {
  const dir = join(stateDir, taskId);
  mkdirSync(dir, { recursive: true });
  const file = checkpointPath(stateDir, taskId);
  writeFileSync(`${file}.tmp`, JSON.stringify(checkpoint));
  renameSync(`${file}.tmp`, file);
}

export function removeCheckpoint(stateDir: string, taskId: string): void {
  rmSync(checkpointPath(stateDir, taskId), { force: true });
}
