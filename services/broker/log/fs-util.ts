/**
 * Small file-system helpers shared by the storage classes: atomic replace, directory fsync, full
 * positional reads, and the KAFKA_STORAGE_ERROR constructor that names the file and position.
 */
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { TideError } from '../../common/errors';
import { TMP_SUFFIX } from './names';

/** A TideError KAFKA_STORAGE_ERROR that says which file and byte position are at fault. */
export function storageError(message: string, file: string, position?: number, cause?: unknown): TideError {
  const where = position === undefined ? file : `${file} at position ${position}`;
  return new TideError('KAFKA_STORAGE_ERROR', `${message} (${where})`, { cause });
}

/**
 * File descriptors the storage engine opens for a moment (atomic replaces, folder fsyncs, small
 * reads) at most at once, process-wide. Every segment keeps its .log open, so a broker with 10,000
 * partitions holds at least 10,000 descriptors; its clean shutdown (or its restart)
 * replaces several small files in every folder at the same time and, unbounded, ran past a
 * 20,000-descriptor limit (EMFILE: partitions went offline, others closed uncleanly). The fs
 * thread pool runs 4 calls at a time, so the bound costs no throughput.
 */
const SHORT_LIVED_FDS = 64;
let shortLivedInUse = 0;
const shortLivedWaiters: (() => void)[] = [];

/** Runs `use` holding one of the SHORT_LIVED_FDS slots; `use` must not ask for another. */
export async function withShortLivedFd<T>(use: () => Promise<T>): Promise<T> {
  if (shortLivedInUse >= SHORT_LIVED_FDS)
    await new Promise<void>((resolve) => shortLivedWaiters.push(resolve));
  else shortLivedInUse++;
  try {
    return await use();
  } finally {
    // The slot passes straight to the next waiter, so a newcomer cannot overtake it.
    const next = shortLivedWaiters.shift();
    if (next) next();
    else shortLivedInUse--;
  }
}

/** fsyncs a directory so that file creations, renames and deletions in it are durable. */
export async function fsyncDir(dir: string): Promise<void> {
  await withShortLivedFd(async () => {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

/**
 * Replaces `file` with `data` so that a crash leaves either the old or the new content: writes
 * `<file>.tmp`, fdatasyncs it, renames it over `file`. The caller fsyncs the directory when the
 * rename itself must be durable (syncDir = true does it here).
 */
export async function writeFileAtomic(file: string, data: Buffer, syncDir = true): Promise<void> {
  const tmp = file + TMP_SUFFIX;
  await withShortLivedFd(async () => {
    const handle = await fs.open(tmp, 'w');
    try {
      const { bytesWritten } = await handle.write(data, 0, data.length, 0);
      if (bytesWritten !== data.length)
        throw storageError(`short write (${bytesWritten} of ${data.length} bytes)`, tmp, 0);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  });
  await fs.rename(tmp, file);
  if (syncDir) await fsyncDir(path.dirname(file));
}

/** Reads until `length` bytes are in `into` or the file ends; returns the bytes read. */
export async function readFully(
  handle: FileHandle,
  into: Buffer,
  length: number,
  position: number,
): Promise<number> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(into, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** Reads exactly `length` bytes at `position`, or fails with KAFKA_STORAGE_ERROR naming the file. */
export async function readExactly(
  handle: FileHandle,
  file: string,
  position: number,
  length: number,
): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  const got = await readFully(handle, buf, length, position);
  if (got !== length) throw storageError(`short read (${got} of ${length} bytes)`, file, position);
  return buf;
}

export async function unlinkIfExists(file: string): Promise<boolean> {
  try {
    await fs.unlink(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

export async function fileExists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** The file's bytes, or undefined when it does not exist. */
export async function readFileIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await withShortLivedFd(() => fs.readFile(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
