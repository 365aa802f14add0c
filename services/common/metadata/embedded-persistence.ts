/**
 * The embedded store's state file, so `tide dev` keeps its topics across restarts.
 *
 * Format (JSON, UTF-8), written whole after each write batch:
 *   { "format": "tide-embedded-metadata", "formatVersion": 1, "revision": <int>,
 *     "kvs": [ { "key": <string>, "value": <base64>, "createRevision": <int>,
 *                "modRevision": <int>, "version": <int> }, ... ] }
 * Leased keys are never written: their lease dies with the process.
 *
 * A save writes `<path>.tmp`, fsyncs it, renames it over `<path>` and fsyncs the folder, so a crash
 * leaves either the old file or the new one, never a torn one.
 */
import { processIsRunning } from '../process-alive';
import * as fs from 'fs';
import * as path from 'path';
import { TideError } from '../errors';
import type { KeyValue } from './store';

const FORMAT = 'tide-embedded-metadata';
const FORMAT_VERSION = 1;

export interface PersistedState {
  revision: number;
  /** Non-leased keys only. */
  kvs: KeyValue[];
}

interface FileKv {
  key: string;
  value: string;
  createRevision: number;
  modRevision: number;
  version: number;
}

function unreadable(file: string, why: string, cause?: unknown): TideError {
  return new TideError(
    'METADATA_UNAVAILABLE',
    `metadata state file ${file} is unreadable (${why}); move it away to start with an empty store`,
    { retriable: false, cause },
  );
}

function isRevision(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Reads the state file; undefined when there is none yet. Throws METADATA_UNAVAILABLE when it is malformed. */
export function loadState(file: string): PersistedState | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(file, (err as Error).message, err);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw unreadable(file, 'not JSON', err);
  }
  const doc = parsed as { format?: unknown; formatVersion?: unknown; revision?: unknown; kvs?: unknown };
  if (typeof parsed !== 'object' || parsed === null || doc.format !== FORMAT)
    throw unreadable(file, `format is not "${FORMAT}"`);
  if (doc.formatVersion !== FORMAT_VERSION)
    throw unreadable(file, `unsupported formatVersion ${String(doc.formatVersion)}`);
  if (!isRevision(doc.revision)) throw unreadable(file, 'revision is not a non-negative integer');
  if (!Array.isArray(doc.kvs)) throw unreadable(file, 'kvs is not an array');
  const revision = doc.revision;
  const kvs = doc.kvs.map((raw: unknown, i): KeyValue => {
    const kv = raw as Partial<FileKv>;
    const ok =
      typeof kv === 'object' &&
      kv !== null &&
      typeof kv.key === 'string' &&
      typeof kv.value === 'string' &&
      isRevision(kv.createRevision) &&
      isRevision(kv.modRevision) &&
      isRevision(kv.version) &&
      kv.createRevision >= 1 &&
      kv.createRevision <= kv.modRevision &&
      kv.modRevision <= revision &&
      kv.version >= 1;
    if (!ok) throw unreadable(file, `kvs[${i}] is malformed`);
    return {
      key: kv.key!,
      value: Buffer.from(kv.value!, 'base64'),
      createRevision: kv.createRevision!,
      modRevision: kv.modRevision!,
      version: kv.version!,
    };
  });
  return { revision, kvs };
}

/** Writes the state file atomically (temp file + fsync + rename + folder fsync). */
export async function saveState(file: string, state: PersistedState): Promise<void> {
  const doc = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    revision: state.revision,
    kvs: state.kvs.map((kv): FileKv => ({
      key: kv.key,
      value: kv.value.toString('base64'),
      createRevision: kv.createRevision,
      modRevision: kv.modRevision,
      version: kv.version,
    })),
  };
  const tmp = `${file}.tmp`;
  const handle = await fs.promises.open(tmp, 'w');
  try {
    await handle.writeFile(JSON.stringify(doc), 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(tmp, file);
  await syncDir(path.dirname(file));
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Claims `<file>.lock` for this process, so two processes never share a state file. A lock left by
 * a dead process (or by an earlier process with this pid, as after a container restart) is taken
 * over. Throws METADATA_UNAVAILABLE when another live process holds it. Returns the release function.
 */
export function lockStateFile(file: string): () => void {
  const lockFile = `${file}.lock`;
  const token = `${process.pid} ${Date.now()} ${Math.random().toString(36).slice(2)}`;
  let holder: string | undefined;
  try {
    holder = fs.readFileSync(lockFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw unreadable(lockFile, (err as Error).message, err);
  }
  const holderPid = holder === undefined ? NaN : Number(holder.split(' ')[0]);
  if (Number.isInteger(holderPid) && holderPid !== process.pid && isAlive(holderPid)) {
    throw new TideError(
      'METADATA_UNAVAILABLE',
      `metadata state file ${file} is in use by process ${holderPid}; stop it, or delete ${lockFile} if that process is not Tide`,
      { retriable: false },
    );
  }
  fs.writeFileSync(lockFile, token);
  return () => {
    try {
      if (fs.readFileSync(lockFile, 'utf8') === token) fs.unlinkSync(lockFile);
    } catch {
      // Already gone: nothing to release.
    }
  };
}

/** A zombie (killed, not yet reaped by its parent) holds nothing: it counts as dead. */
function isAlive(pid: number): boolean {
  return processIsRunning(pid);
}
