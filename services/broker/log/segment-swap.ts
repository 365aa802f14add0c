/**
 * Replacing segments with a cleaned segment, so that a crash at any instant leaves a consistent
 * log (Kafka's replaceSegments and its LogLoader rules, simplified by one invariant: a cleaned
 * segment ends exactly where the segments it replaces ended, because the cleaner always keeps the
 * last batch of a group, at least as an empty header; see cleaner/batch-filter.ts).
 *
 * Files, for a group of segments [B1, B2, ... Bn) cleaned into one segment based at B1:
 *
 *   0. the worker writes `<B1>.log.cleaned` and fsyncs it              (crash: .cleaned deleted
 *                                                                         at load, originals stay)
 *   1. rename `<B1>.log.cleaned` -> `<B1>.log.swap`; fsync the folder   COMMIT POINT
 *   1b. write `<B1>.txnindex` with the aborted transactions of every original (atomically); the
 *      cleaned segment holds their markers and maybe records, so read_committed still needs them
 *   2. rename each original's .log, .index, .timeindex (and .txnindex, but B1's) to `<name>.deleted`
 *   3. rename `<B1>.log.swap` -> `<B1>.log`; fsync the folder
 *   4. write `<B1>.index` and `<B1>.timeindex` (each atomically: .tmp + rename); fsync the folder
 *   5. once no read that started before step 3 is still running, close the originals' file
 *      handles and unlink the `.deleted` files
 *
 * Load (completeInterruptedSwaps, before stray files are removed): for each `<B>.log.swap`, scan
 * it (CRC-checked; it was fsynced before the rename) for the offset after its last batch, E. The
 * originals are exactly the `.log` files with base in [B, E): merge their `.txnindex` files into
 * `<B>.txnindex` (idempotent: step 1b may have written it already), delete them with their index
 * files, then rename the swap to `<B>.log` (its indexes are rebuilt by scanning, like any segment without
 * index files). After that `.cleaned`, `.deleted` and `.tmp` leftovers are deleted as before.
 * So: a crash before step 1 keeps the originals; from step 1 on, the cleaned segment wins.
 * A swap file that does not scan cleanly (media damage, or not Tide's) is deleted when `<B>.log`
 * still exists (step 2 renames that original first, so none was touched yet); otherwise the load
 * fails with KAFKA_STORAGE_ERROR rather than guess.
 *
 * Readers never see a half-swapped log: the in-memory segment list is replaced in one synchronous
 * step after step 4, readers that started earlier keep their (renamed, still open) handles.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { scanBatches } from './batch-scan';
import type { CleanedSegment } from './cleaner/clean-job';
import { CLEANED_SUFFIX } from './cleaner/clean-job';
import { fsyncDir, readFileIfExists, unlinkIfExists, writeFileAtomic } from './fs-util';
import {
  INDEX_SUFFIX,
  LOG_SUFFIX,
  TIME_INDEX_SUFFIX,
  TXN_INDEX_SUFFIX,
  offsetFileName,
  parseOffsetFileName,
} from './names';
import { TxnIndex } from './txn-index';
import { OffsetIndex } from './offset-index';
import { LogSegment } from './segment';
import { TimeIndex } from './time-index';

/** A cleaned segment past its commit point, not yet renamed to `.log`. */
export const SWAP_SUFFIX = '.swap';
/** A replaced segment's file, renamed until no read uses it. */
export const DELETED_SUFFIX = '.deleted';
export { CLEANED_SUFFIX };

/** Named points of the swap, for fault-injection tests (a hook may kill the process there). */
export type SwapStep =
  'cleaned-written' | 'swap-renamed' | 'original-renamed' | 'swap-completed' | 'indexes-written';

async function renameIfExists(from: string, to: string): Promise<void> {
  try {
    await fs.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** The files of a replaced segment; the cleaned segment based at `keepTxnIndexOf` reuses its .txnindex name. */
function segmentFiles(segment: LogSegment, keepTxnIndexOf?: number): string[] {
  const files = [segment.logFile, segment.indexFile, segment.timeIndexFile];
  if (segment.baseOffset !== keepTxnIndexOf) files.push(segment.txnIndexFile);
  return files;
}

/** Writes `file` with the entries of `index`, or removes it when there is none. */
async function writeTxnIndex(file: string, index: TxnIndex): Promise<void> {
  if (index.entryCount === 0) await unlinkIfExists(file);
  else await writeFileAtomic(file, index.toBytes(), false);
}

/**
 * Steps 1-4. Returns the new segment, open and indexed. `onCommitted` runs right after the commit
 * point: from then on a failure must take the log offline (the next load finishes the swap).
 */
export async function swapInCleaned(args: {
  dir: string;
  cleaned: CleanedSegment;
  originals: readonly LogSegment[];
  indexIntervalBytes: number;
  lastModifiedMs: number;
  onCommitted: () => void;
  hook?: (step: SwapStep) => void;
}): Promise<LogSegment> {
  const { dir, cleaned, originals, hook } = args;
  const logFile = path.join(dir, offsetFileName(cleaned.baseOffset, LOG_SUFFIX));
  const swapFile = logFile + SWAP_SUFFIX;
  hook?.('cleaned-written');
  await fs.rename(cleaned.file, swapFile);
  await fsyncDir(dir);
  args.onCommitted();
  hook?.('swap-renamed');
  const txnIndex = TxnIndex.merge(originals.map((o) => o.txnIndex));
  await writeTxnIndex(path.join(dir, offsetFileName(cleaned.baseOffset, TXN_INDEX_SUFFIX)), txnIndex);
  for (const original of originals) {
    for (const file of segmentFiles(original, cleaned.baseOffset))
      await renameIfExists(file, file + DELETED_SUFFIX);
    hook?.('original-renamed');
  }
  await fs.rename(swapFile, logFile);
  await fsyncDir(dir);
  hook?.('swap-completed');
  // Keep the originals' modification time, so time-based retention of compact,delete topics
  // does not restart because the records were rewritten.
  const mtime = new Date(args.lastModifiedMs);
  await fs.utimes(logFile, mtime, mtime);

  const segment = new LogSegment(dir, cleaned.baseOffset, args.indexIntervalBytes);
  const { sizeBytes } = await segment.openFile();
  try {
    if (sizeBytes !== cleaned.sizeBytes)
      throw new TideError(
        'KAFKA_STORAGE_ERROR',
        `cleaned segment ${logFile} has ${sizeBytes} bytes, expected ${cleaned.sizeBytes}`,
      );
    const offsetIndex = OffsetIndex.fromBytes(
      cleaned.baseOffset,
      Buffer.from(cleaned.offsetIndex),
      sizeBytes,
    );
    const timeIndex = TimeIndex.fromBytes(
      cleaned.baseOffset,
      Buffer.from(cleaned.timeIndex),
      cleaned.endOffset,
    );
    if (typeof offsetIndex === 'string' || typeof timeIndex === 'string')
      throw new TideError(
        'KAFKA_STORAGE_ERROR',
        `cleaned segment ${logFile} came with a bad index: ${String(offsetIndex)} ${String(timeIndex)}`,
      );
    segment.adoptIndexes(offsetIndex, timeIndex);
    segment.txnIndex = txnIndex;
    segment.sizeBytes = sizeBytes;
    segment.assignedBytes = sizeBytes;
    segment.nextOffset = cleaned.endOffset;
    segment.lastModifiedMs = args.lastModifiedMs;
    await segment.writeIndexFiles();
    await fsyncDir(dir);
  } catch (err) {
    await segment.close();
    throw err;
  }
  hook?.('indexes-written');
  return segment;
}

/** Step 5 for one original: closes its handle and unlinks its `.deleted` files. */
export async function deleteReplaced(segment: LogSegment): Promise<void> {
  await segment.close();
  for (const file of segmentFiles(segment)) await unlinkIfExists(file + DELETED_SUFFIX);
}

/**
 * At load: finishes every swap that passed its commit point (see the header). Returns the folder's
 * file names afterwards. Throws KAFKA_STORAGE_ERROR when a swap file is damaged and its originals
 * may be partly gone: the partition must not load silently then.
 */
export async function completeInterruptedSwaps(
  dir: string,
  names: string[],
  logger: Logger,
): Promise<string[]> {
  const swaps = names
    .filter((n) => n.endsWith(LOG_SUFFIX + SWAP_SUFFIX))
    .map((n) => ({ name: n, base: parseOffsetFileName(n.slice(0, -SWAP_SUFFIX.length), LOG_SUFFIX) }))
    .filter((s): s is { name: string; base: number } => s.base !== undefined)
    .sort((a, b) => a.base - b.base);
  if (swaps.length === 0) return names;
  for (const swap of swaps) {
    const swapFile = path.join(dir, swap.name);
    const handle = await fs.open(swapFile, 'r');
    let endOffset: number | undefined;
    let damage = '';
    try {
      const { size } = await handle.stat();
      const scan = await scanBatches(
        handle,
        0,
        size,
        { verifyCrc: true, segmentBaseOffset: swap.base, file: swapFile },
        () => true,
      );
      if (scan.invalid === undefined && size > 0) endOffset = scan.nextOffset;
      else damage = `at ${scan.endPosition}: ${scan.invalid ?? 'empty'}`;
    } finally {
      await handle.close();
    }
    if (endOffset === undefined) {
      if (!names.includes(offsetFileName(swap.base, LOG_SUFFIX)))
        throw new TideError(
          'KAFKA_STORAGE_ERROR',
          `cannot finish the interrupted segment swap: ${swapFile} is damaged ${damage}`,
        );
      logger.warn(
        { file: swapFile, damage },
        'deleting a damaged segment swap file; its originals are intact',
      );
      await unlinkIfExists(swapFile);
      continue;
    }
    const current = await fs.readdir(dir);
    const replaced = current
      .map((n) => parseOffsetFileName(n, LOG_SUFFIX))
      .filter((b): b is number => b !== undefined && b >= swap.base && b < endOffset);
    const txnIndexes: TxnIndex[] = [];
    for (const name of current) {
      const base = parseOffsetFileName(name, TXN_INDEX_SUFFIX);
      if (base === undefined || base < swap.base || base >= endOffset) continue;
      const bytes = await readFileIfExists(path.join(dir, name));
      const index = bytes === undefined ? undefined : TxnIndex.fromBytes(bytes);
      if (index instanceof TxnIndex) txnIndexes.push(index);
      else if (index !== undefined)
        logger.warn({ file: name, problem: index }, 'ignoring an invalid .txnindex');
    }
    await writeTxnIndex(
      path.join(dir, offsetFileName(swap.base, TXN_INDEX_SUFFIX)),
      TxnIndex.merge(txnIndexes),
    );
    for (const base of replaced) {
      if (base !== swap.base) await unlinkIfExists(path.join(dir, offsetFileName(base, TXN_INDEX_SUFFIX)));
      for (const suffix of [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX])
        await unlinkIfExists(path.join(dir, offsetFileName(base, suffix)));
    }
    await fs.rename(swapFile, path.join(dir, offsetFileName(swap.base, LOG_SUFFIX)));
    await fsyncDir(dir);
    logger.warn(
      { file: swapFile, baseOffset: swap.base, endOffset, replaced },
      'finished a segment swap interrupted by a crash',
    );
  }
  return fs.readdir(dir);
}
