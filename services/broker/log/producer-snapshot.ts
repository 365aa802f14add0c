/**
 * Producer-state snapshot files: `<offset:20 digits>.snapshot`, the idempotent-producer state as it
 * was just before `offset` (every batch below it applied, none at or above). Written when a segment
 * is rolled (offset = the new segment's base offset) and on close (offset = log end offset).
 * Loading takes the newest valid snapshot at or below the log end and replays the batch headers
 * after it (log-loader.ts).
 *
 * Format, big-endian:
 *
 *   offset  size  field
 *   0       2     version          u16  2 (1: without currentTxnFirstOffset, still read)
 *   2       4     crc              u32  CRC32C of bytes [6, end)
 *   6       4     producerCount    u32
 *   10      ...   producerCount entries:
 *                   0   8   producerId       i64
 *                   8   2   producerEpoch    i16
 *                   10  8   lastTimestampMs  i64
 *                   18  8   currentTxnFirstOffset i64 (-1: no open transaction; version 2 only)
 *                   26  1   batchCount       u8   (0..5, oldest first)
 *                   27  ... batchCount x 24 bytes:
 *                             0   4  firstSeq     i32
 *                             4   4  lastSeq      i32
 *                             8   8  firstOffset  i64
 *                             16  8  lastOffset   i64
 *
 * Files are replaced atomically (`.tmp` + rename), so a torn snapshot is a CRC failure at worst;
 * a snapshot that fails its checks is skipped (with a warning) in favour of an older one.
 */
import { crc32c } from '@node-rs/crc32';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../common/logger';
import { readFileIfExists, unlinkIfExists, writeFileAtomic } from './fs-util';
import { SNAPSHOT_SUFFIX, offsetFileName, parseOffsetFileName } from './names';
import { PRODUCER_BATCHES_KEPT, type ProducerEntry } from './producer-state';

export const SNAPSHOT_VERSION = 2;
const HEADER_BYTES = 10;
const ENTRY_FIXED_BYTES = 27;
const ENTRY_FIXED_BYTES_V1 = 19;
const BATCH_BYTES = 24;

export function encodeProducerSnapshot(entries: Iterable<ProducerEntry>): Buffer {
  const list = [...entries];
  let size = HEADER_BYTES;
  for (const e of list) size += ENTRY_FIXED_BYTES + e.batches.length * BATCH_BYTES;
  const buf = Buffer.alloc(size);
  buf.writeUInt16BE(SNAPSHOT_VERSION, 0);
  buf.writeUInt32BE(list.length, 6);
  let at = HEADER_BYTES;
  for (const e of list) {
    buf.writeBigInt64BE(BigInt(e.producerId), at);
    buf.writeInt16BE(e.epoch, at + 8);
    buf.writeBigInt64BE(BigInt(e.lastTimestampMs), at + 10);
    buf.writeBigInt64BE(BigInt(e.currentTxnFirstOffset), at + 18);
    buf.writeUInt8(e.batches.length, at + 26);
    at += ENTRY_FIXED_BYTES;
    for (const b of e.batches) {
      buf.writeInt32BE(b.firstSeq, at);
      buf.writeInt32BE(b.lastSeq, at + 4);
      buf.writeBigInt64BE(BigInt(b.firstOffset), at + 8);
      buf.writeBigInt64BE(BigInt(b.lastOffset), at + 16);
      at += BATCH_BYTES;
    }
  }
  buf.writeUInt32BE(crc32c(buf.subarray(6)) >>> 0, 2);
  return buf;
}

/** The entries in a snapshot's bytes, or why the bytes are not a valid snapshot. */
export function decodeProducerSnapshot(buf: Buffer): ProducerEntry[] | string {
  if (buf.length < HEADER_BYTES) return `${buf.length} bytes is shorter than the header`;
  const version = buf.readUInt16BE(0);
  if (version !== SNAPSHOT_VERSION && version !== 1) return `unknown version ${version}`;
  const fixedBytes = version === 1 ? ENTRY_FIXED_BYTES_V1 : ENTRY_FIXED_BYTES;
  if (crc32c(buf.subarray(6)) >>> 0 !== buf.readUInt32BE(2)) return 'crc mismatch';
  const count = buf.readUInt32BE(6);
  const entries: ProducerEntry[] = [];
  let at = HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    if (at + fixedBytes > buf.length) return 'truncated entry';
    const batchCount = buf.readUInt8(at + fixedBytes - 1);
    if (batchCount > PRODUCER_BATCHES_KEPT) return `entry with ${batchCount} batches`;
    const entry: ProducerEntry = {
      producerId: Number(buf.readBigInt64BE(at)),
      epoch: buf.readInt16BE(at + 8),
      lastTimestampMs: Number(buf.readBigInt64BE(at + 10)),
      batches: [],
      currentTxnFirstOffset: version === 1 ? -1 : Number(buf.readBigInt64BE(at + 18)),
    };
    at += fixedBytes;
    if (at + batchCount * BATCH_BYTES > buf.length) return 'truncated batch list';
    for (let j = 0; j < batchCount; j++) {
      entry.batches.push({
        firstSeq: buf.readInt32BE(at),
        lastSeq: buf.readInt32BE(at + 4),
        firstOffset: Number(buf.readBigInt64BE(at + 8)),
        lastOffset: Number(buf.readBigInt64BE(at + 16)),
      });
      at += BATCH_BYTES;
    }
    entries.push(entry);
  }
  if (at !== buf.length) return `${buf.length - at} trailing bytes`;
  return entries;
}

/** The snapshot files of one partition folder. */
export class ProducerSnapshotStore {
  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {}

  fileFor(offset: number): string {
    return path.join(this.dir, offsetFileName(offset, SNAPSHOT_SUFFIX));
  }

  /**
   * Offsets of the snapshot files present, ascending; from `names` (a listing of the folder the
   * caller just made) when given, sparing a readdir per partition at load.
   */
  async list(names?: readonly string[]): Promise<number[]> {
    names ??= await fs.readdir(this.dir);
    const offsets: number[] = [];
    for (const name of names) {
      const offset = parseOffsetFileName(name, SNAPSHOT_SUFFIX);
      if (offset !== undefined) offsets.push(offset);
    }
    return offsets.sort((a, b) => a - b);
  }

  /** Writes the snapshot atomically; syncDir = false leaves the folder's fsync to the caller. */
  async write(offset: number, bytes: Buffer, syncDir = true): Promise<void> {
    await writeFileAtomic(this.fileFor(offset), bytes, syncDir);
  }

  /**
   * The newest valid snapshot at or below maxOffset; invalid ones are logged and deleted.
   * `present`: the offsets of the snapshot files there (deleteWhere's answer), else listed here.
   */
  async latest(
    maxOffset: number,
    present?: readonly number[],
  ): Promise<{ offset: number; entries: ProducerEntry[] } | undefined> {
    const offsets = (present ?? (await this.list())).filter((o) => o <= maxOffset);
    for (let i = offsets.length - 1; i >= 0; i--) {
      const file = this.fileFor(offsets[i]);
      const bytes = await readFileIfExists(file);
      if (bytes === undefined) continue;
      const decoded = decodeProducerSnapshot(bytes);
      if (typeof decoded !== 'string') return { offset: offsets[i], entries: decoded };
      this.logger.warn({ file, reason: decoded }, 'deleting invalid producer snapshot');
      await unlinkIfExists(file);
    }
    return undefined;
  }

  /**
   * Deletes the snapshots for which `drop(offset)` is true; resolves with the offsets of those
   * kept. `names`: as for list().
   */
  async deleteWhere(drop: (offset: number) => boolean, names?: readonly string[]): Promise<number[]> {
    const kept: number[] = [];
    for (const offset of await this.list(names)) {
      if (drop(offset)) await unlinkIfExists(this.fileFor(offset));
      else kept.push(offset);
    }
    return kept;
  }
}
