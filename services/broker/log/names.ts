/**
 * Names of everything inside a data dir and a partition folder.
 *
 *   <dataDir>/.lock                                  data dir lock (dir-lock.ts)
 *   <dataDir>/<topic>-<partition>/                   one folder per partition replica
 *       <baseOffset:20 digits>.log                   segment: RecordBatch v2 bytes back to back
 *       <baseOffset:20 digits>.index                 sparse offset index (offset-index.ts)
 *       <baseOffset:20 digits>.timeindex             time index (time-index.ts)
 *       <offset:20 digits>.snapshot                  producer state as of that offset (producer-snapshot.ts)
 *       log-start-offset                             checkpoint (checkpoint.ts)
 *       recovery-point                               checkpoint (checkpoint.ts)
 *       clean-shutdown                               empty marker written by close()
 *
 * Any `*.tmp`, `*.deleted`, `*.cleaned` or `*.swap` file is a leftover of an interrupted operation
 * and is deleted when the partition is loaded.
 */
export const LOG_SUFFIX = '.log';
export const INDEX_SUFFIX = '.index';
export const TIME_INDEX_SUFFIX = '.timeindex';
export const SNAPSHOT_SUFFIX = '.snapshot';
/** Aborted-transaction index of a segment (txn-index.ts). */
export const TXN_INDEX_SUFFIX = '.txnindex';
export const TMP_SUFFIX = '.tmp';
export const STRAY_SUFFIXES: readonly string[] = [TMP_SUFFIX, '.deleted', '.cleaned', '.swap'];

export const LOG_START_OFFSET_FILE = 'log-start-offset';
export const RECOVERY_POINT_FILE = 'recovery-point';
export const CLEAN_SHUTDOWN_FILE = 'clean-shutdown';
export const DATA_DIR_LOCK_FILE = '.lock';

const OFFSET_DIGITS = 20;
const OFFSET_NAME = /^(\d{20})$/;
const PARTITION_DIR = /^(.+)-(\d+)$/;

/** `<offset as 20 digits><suffix>`, e.g. 00000000000000000042.log. */
export function offsetFileName(offset: number, suffix: string): string {
  return String(offset).padStart(OFFSET_DIGITS, '0') + suffix;
}

/** The offset in a name made by offsetFileName with this suffix, else undefined. */
export function parseOffsetFileName(name: string, suffix: string): number | undefined {
  if (!name.endsWith(suffix)) return undefined;
  const match = OFFSET_NAME.exec(name.slice(0, name.length - suffix.length));
  if (!match) return undefined;
  const offset = Number(match[1]);
  return Number.isSafeInteger(offset) ? offset : undefined;
}

export function partitionDirName(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/** Splits `<topic>-<partition>` at the last dash (topics may contain dashes). */
export function parsePartitionDirName(name: string): { topic: string; partition: number } | undefined {
  const match = PARTITION_DIR.exec(name);
  if (!match) return undefined;
  const partition = Number(match[2]);
  if (!Number.isSafeInteger(partition)) return undefined;
  return { topic: match[1], partition };
}

export function isStrayFile(name: string): boolean {
  return STRAY_SUFFIXES.some((suffix) => name.endsWith(suffix));
}
