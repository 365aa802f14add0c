/**
 * LeaderEpochCache: which leader epoch wrote which offsets of one partition replica (Kafka's
 * LeaderEpochFileCache). A list of entries (epoch, startOffset), both strictly increasing: epoch
 * `e` wrote the offsets from its startOffset up to the next entry's startOffset (the last entry:
 * up to the log end offset). Replication uses it for the diverging-epoch check (KIP-101/279/320):
 * a follower truncates by leader epoch, never by high watermark alone.
 *
 * File `leader-epoch-checkpoint` in the partition folder (ASCII, replaced atomically through
 * `.tmp` + fdatasync + rename + directory fsync, like the other checkpoints):
 *
 *   v1 <count> <crc32c of every byte after this line, 8 lowercase hex digits>\n
 *   <epoch> <startOffset>\n                                     count times, oldest first
 *
 * e.g. epochs 0 from offset 0 and 3 from offset 120:
 *
 *   v1 2 <crc>\n0 0\n3 120\n
 *
 * A file that does not parse or fails its CRC is ignored with a warning and the cache is rebuilt
 * from the batch headers (each batch carries its partitionLeaderEpoch), as when the file is missing.
 * Kafka's file is the same idea without the CRC: `0\n<count>\n<epoch> <offset>\n...`.
 *
 * The file is written when a replica becomes leader (PartitionLog.assignEpoch, after every write
 * queued before it), on truncation and on retention; appends change the entries in memory only.
 * On load the entries are fitted to the log and the batch headers after the newest entry are
 * replayed (leader-epoch-loader.ts), so a stale or missing file never loses an epoch.
 */
import { crc32c } from '@node-rs/crc32';
import type { Logger } from '../../common/logger';
import { readFileIfExists, writeFileAtomic } from './fs-util';
import type { EpochEndOffset, EpochEntry } from './interface';

export type { EpochEndOffset, EpochEntry };

export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
/** No epoch: an empty cache's latest epoch, and the "unknown" answer of endOffsetFor. */
export const NO_EPOCH = -1;

const VERSION = 'v1';

function hex(crc: number): string {
  return (crc >>> 0).toString(16).padStart(8, '0');
}

/** The checkpoint bytes for these entries. */
export function encodeLeaderEpochCheckpoint(entries: readonly EpochEntry[]): Buffer {
  const body = entries.map((e) => `${e.epoch} ${e.startOffset}\n`).join('');
  const bodyBytes = Buffer.from(body, 'ascii');
  return Buffer.concat([
    Buffer.from(`${VERSION} ${entries.length} ${hex(crc32c(bodyBytes))}\n`, 'ascii'),
    bodyBytes,
  ]);
}

/** The entries in checkpoint bytes, or why they are not a valid checkpoint. */
export function decodeLeaderEpochCheckpoint(bytes: Buffer): EpochEntry[] | string {
  const text = bytes.toString('ascii');
  const newline = text.indexOf('\n');
  if (newline < 0) return 'no header line';
  const header = /^(v\d+) (\d+) ([0-9a-f]{8})$/.exec(text.slice(0, newline));
  if (!header) return 'not a leader-epoch checkpoint header';
  if (header[1] !== VERSION) return `unknown version ${header[1]}`;
  const body = bytes.subarray(newline + 1);
  if (hex(crc32c(body)) !== header[3]) return 'crc mismatch';
  const lines = body.toString('ascii').split('\n');
  if (lines.pop() !== '') return 'last line not terminated';
  if (lines.length !== Number(header[2])) return `header says ${header[2]} entries, found ${lines.length}`;
  const entries: EpochEntry[] = [];
  for (const line of lines) {
    const match = /^(\d+) (\d+)$/.exec(line);
    if (!match) return `bad entry line ${JSON.stringify(line)}`;
    const entry = { epoch: Number(match[1]), startOffset: Number(match[2]) };
    if (entry.epoch > 0x7fff_ffff || !Number.isSafeInteger(entry.startOffset))
      return `entry out of range: ${line}`;
    const previous = entries[entries.length - 1];
    if (previous && (entry.epoch <= previous.epoch || entry.startOffset <= previous.startOffset)) {
      return `entries not strictly increasing at ${line}`;
    }
    entries.push(entry);
  }
  return entries;
}

/** Reads the checkpoint; undefined when it is missing or invalid (logged). */
export async function readLeaderEpochCheckpoint(
  file: string,
  logger: Logger,
): Promise<EpochEntry[] | undefined> {
  const bytes = await readFileIfExists(file);
  if (bytes === undefined) return undefined;
  const result = decodeLeaderEpochCheckpoint(bytes);
  if (typeof result === 'string') {
    logger.warn(
      { file, reason: result },
      'ignoring invalid leader-epoch checkpoint; rebuilding it from the log',
    );
    return undefined;
  }
  return result;
}

export function writeLeaderEpochCheckpoint(file: string, entries: readonly EpochEntry[]): Promise<void> {
  return writeFileAtomic(file, encodeLeaderEpochCheckpoint(entries));
}

/**
 * The in-memory list. Mutators return true when the entries changed (the owner then writes the
 * checkpoint). Pure: no I/O, no clock.
 */
export class LeaderEpochCache {
  private list: EpochEntry[];

  constructor(entries: readonly EpochEntry[] = []) {
    this.list = entries.map((e) => ({ ...e }));
  }

  /** Oldest first. */
  entries(): readonly EpochEntry[] {
    return this.list;
  }

  /** The newest epoch, NO_EPOCH when empty. */
  get latestEpoch(): number {
    return this.list.length === 0 ? NO_EPOCH : this.list[this.list.length - 1].epoch;
  }

  /** Start offset of the newest epoch, undefined when empty. */
  get latestStartOffset(): number | undefined {
    return this.list[this.list.length - 1]?.startOffset;
  }

  /**
   * Records that `epoch` starts at `startOffset` (a leader taking over at its log end, or the first
   * batch of a newer epoch). Kafka's rule: nothing changes when the newest entry has this epoch and
   * starts at or before startOffset; otherwise every entry whose epoch or start offset is not below
   * the new one's is removed first (they describe offsets the log no longer has that way), then the
   * entry is added. Negative epochs (unstamped batches) are ignored.
   */
  assign(epoch: number, startOffset: number): boolean {
    if (epoch < 0) return false;
    const latest = this.list[this.list.length - 1];
    if (latest && latest.epoch === epoch && latest.startOffset <= startOffset) return false;
    while (this.list.length > 0) {
      const last = this.list[this.list.length - 1];
      if (last.epoch < epoch && last.startOffset < startOffset) break;
      this.list.pop();
    }
    this.list.push({ epoch, startOffset });
    return true;
  }

  /**
   * Where `requestedEpoch` ends, as Kafka's `endOffsetFor`:
   *   - NO_EPOCH requested, or an epoch newer than every entry → undefined (unknown);
   *   - the newest epoch → (it, logEndOffset);
   *   - otherwise (the largest epoch <= requested, the start offset of the first epoch above the
   *     requested one); when every entry is newer than the requested epoch, (requested, the first
   *     entry's start offset): this log has nothing of that epoch or older below that offset.
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: number): EpochEndOffset | undefined {
    if (requestedEpoch < 0 || this.list.length === 0) return undefined;
    const latest = this.list[this.list.length - 1];
    if (latest.epoch === requestedEpoch) return { epoch: requestedEpoch, endOffset: logEndOffset };
    const higher = this.list.findIndex((e) => e.epoch > requestedEpoch);
    if (higher < 0) return undefined;
    if (higher === 0) return { epoch: requestedEpoch, endOffset: this.list[0].startOffset };
    return { epoch: this.list[higher - 1].epoch, endOffset: this.list[higher].startOffset };
  }

  /** Drops entries that start at or after `endOffset` (the log was truncated to it). */
  truncateFromEnd(endOffset: number): boolean {
    const before = this.list.length;
    while (this.list.length > 0 && this.list[this.list.length - 1].startOffset >= endOffset) this.list.pop();
    return this.list.length !== before;
  }

  /**
   * The log now starts at `startOffset` (retention): entries that start at or below it collapse
   * into one, the newest of them, moved to start at `startOffset`.
   */
  truncateFromStart(startOffset: number): boolean {
    const first = this.list[0];
    if (!first || first.startOffset >= startOffset) return false;
    let keep = 0;
    while (keep + 1 < this.list.length && this.list[keep + 1].startOffset <= startOffset) keep++;
    const epoch = this.list[keep].epoch;
    this.list.splice(0, keep + 1, { epoch, startOffset });
    return true;
  }

  clear(): boolean {
    const changed = this.list.length > 0;
    this.list = [];
    return changed;
  }
}
