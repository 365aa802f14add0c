/**
 * The cleaner checkpoint of one partition: `cleaner-checkpoint` in its folder (Kafka keeps one
 * `cleaner-offset-checkpoint` per data dir; one per partition folder keeps a partition's files
 * together and needs no cross-partition locking).
 *
 * Format (ASCII, one line, replaced atomically through `.tmp` + rename):
 *
 *   v1 <firstDirtyOffset> <nextDeleteHorizonMs> <crc32c of "v1 <a> <b>" as 8 lowercase hex>\n
 *
 * e.g. `v1 1200 -1 0c3f9a11\n`. firstDirtyOffset: everything below it has been cleaned (each key
 * at most once there). nextDeleteHorizonMs: the earliest delete horizon of a cleaned batch that
 * still holds tombstones (-1: none), so the cleaner comes back to drop them even when nothing new
 * is dirty. A file that fails to parse is ignored with a warning: the safe fallback is "never
 * cleaned" (the next pass maps from the log start; nothing is lost, only work repeated).
 *
 * The file's presence also tells recovery that the log may have offset gaps (log-loader.ts).
 */
import { crc32c } from '@node-rs/crc32';
import * as path from 'node:path';
import type { Logger } from '../../common/logger';
import { readFileIfExists, writeFileAtomic } from './fs-util';

export const CLEANER_CHECKPOINT_FILE = 'cleaner-checkpoint';

export interface CleanerCheckpoint {
  firstDirtyOffset: number;
  nextDeleteHorizonMs: number;
}

function crcOf(body: string): string {
  return (crc32c(Buffer.from(body, 'ascii')) >>> 0).toString(16).padStart(8, '0');
}

export function encodeCleanerCheckpoint(c: CleanerCheckpoint): Buffer {
  const body = `v1 ${c.firstDirtyOffset} ${c.nextDeleteHorizonMs}`;
  return Buffer.from(`${body} ${crcOf(body)}\n`, 'ascii');
}

/** The checkpoint in the bytes, or why they are not one. */
export function decodeCleanerCheckpoint(bytes: Buffer): CleanerCheckpoint | string {
  const match = /^v1 (\d+) (-1|\d+) ([0-9a-f]{8})\n$/.exec(bytes.toString('ascii'));
  if (!match) return 'not a v1 cleaner checkpoint line';
  if (crcOf(`v1 ${match[1]} ${match[2]}`) !== match[3]) return 'crc mismatch';
  const firstDirtyOffset = Number(match[1]);
  const nextDeleteHorizonMs = Number(match[2]);
  if (!Number.isSafeInteger(firstDirtyOffset) || !Number.isSafeInteger(nextDeleteHorizonMs))
    return 'number out of range';
  return { firstDirtyOffset, nextDeleteHorizonMs };
}

export async function readCleanerCheckpoint(
  dir: string,
  logger: Logger,
): Promise<CleanerCheckpoint | undefined> {
  const file = path.join(dir, CLEANER_CHECKPOINT_FILE);
  const bytes = await readFileIfExists(file);
  if (bytes === undefined) return undefined;
  const decoded = decodeCleanerCheckpoint(bytes);
  if (typeof decoded === 'string') {
    logger.warn({ file, reason: decoded }, 'ignoring invalid cleaner checkpoint');
    return undefined;
  }
  return decoded;
}

export async function writeCleanerCheckpoint(dir: string, c: CleanerCheckpoint): Promise<void> {
  await writeFileAtomic(path.join(dir, CLEANER_CHECKPOINT_FILE), encodeCleanerCheckpoint(c));
}
