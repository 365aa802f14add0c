/**
 * A one-offset checkpoint file: `log-start-offset` and `recovery-point` in each partition folder.
 *
 * Format (ASCII, one line, replaced atomically through `<name>.tmp` + rename):
 *
 *   v1 <offset in decimal> <crc32c of "v1 <offset>" as 8 lowercase hex digits>\n
 *
 * e.g. `v1 42 a1b2c3d4\n`. A file that does not match (bad version, bad number, bad CRC) is
 * treated as missing, with a warning: both checkpoints have a safe fallback (the first segment's
 * base offset, and "recover every segment").
 */
import { crc32c } from '@node-rs/crc32';
import type { Logger } from '../../common/logger';
import { readFileIfExists, writeFileAtomic } from './fs-util';

const VERSION = 'v1';

export function encodeOffsetCheckpoint(offset: number): Buffer {
  const body = `${VERSION} ${offset}`;
  const crc = (crc32c(Buffer.from(body, 'ascii')) >>> 0).toString(16).padStart(8, '0');
  return Buffer.from(`${body} ${crc}\n`, 'ascii');
}

/** The offset in a checkpoint's bytes, or a reason why they are not a valid checkpoint. */
export function decodeOffsetCheckpoint(bytes: Buffer): number | string {
  const text = bytes.toString('ascii');
  const match = /^(v\d+) (\d+) ([0-9a-f]{8})\n$/.exec(text);
  if (!match) return 'not a checkpoint line';
  if (match[1] !== VERSION) return `unknown version ${match[1]}`;
  const body = `${match[1]} ${match[2]}`;
  const crc = (crc32c(Buffer.from(body, 'ascii')) >>> 0).toString(16).padStart(8, '0');
  if (crc !== match[3]) return 'crc mismatch';
  const offset = Number(match[2]);
  if (!Number.isSafeInteger(offset)) return 'offset out of range';
  return offset;
}

/** Reads a checkpoint; undefined when the file is missing or invalid (logged). */
export async function readOffsetCheckpoint(file: string, logger: Logger): Promise<number | undefined> {
  const bytes = await readFileIfExists(file);
  if (bytes === undefined) return undefined;
  const result = decodeOffsetCheckpoint(bytes);
  if (typeof result === 'string') {
    logger.warn({ file, reason: result }, 'ignoring invalid offset checkpoint');
    return undefined;
  }
  return result;
}

/**
 * Replaces the checkpoint atomically. syncDir = false leaves the rename's durability to the
 * caller's next fsync of the folder (one fsync for several files).
 */
export async function writeOffsetCheckpoint(file: string, offset: number, syncDir = true): Promise<void> {
  await writeFileAtomic(file, encodeOffsetCheckpoint(offset), syncDir);
}
