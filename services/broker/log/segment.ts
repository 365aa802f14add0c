/**
 * One segment of a partition log: `<baseOffset:20 digits>.log` plus its offset index and time index
 * (offset-index.ts, time-index.ts).
 *
 * The .log file is RecordBatch v2 batches back to back, exactly as appended (baseOffset and
 * partitionLeaderEpoch patched by the broker; layout in services/common/records/layout.ts), with no
 * header or footer of its own. Byte positions and offsets relative to baseOffset are u32, so a
 * segment holds at most 4 GiB and 2^32 offsets (the log rolls before either overflows).
 *
 * Two views of the size: `assignedBytes` counts batches that have offsets (the append path rolls by
 * it) and `sizeBytes` only batches already written to the file. Reads and indexes use `sizeBytes`
 * and never see bytes that are not in the file yet.
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { assert } from '../../common/assert';
import { scanBatches, type ScanResult, type ScannedBatch } from './batch-scan';
import { readExactly, readFileIfExists, unlinkIfExists, writeFileAtomic } from './fs-util';
import { BATCH_HEADER_BYTES, OFFSET_MAX_TIMESTAMP } from '../../common/records/layout';
import { INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX, offsetFileName } from './names';
import { OffsetIndex } from './offset-index';
import { TimeIndex } from './time-index';
import { TxnIndex } from './txn-index';

/** Absent on platforms without it (Windows). */
const O_DSYNC: number | undefined = fsConstants.O_DSYNC;

/** Where one written batch sits and what the indexes need from it. */
export interface SegmentBatch {
  baseOffset: number;
  lastOffset: number;
  maxTimestamp: number;
  position: number;
  sizeBytes: number;
}

export class LogSegment {
  readonly logFile: string;
  readonly indexFile: string;
  readonly timeIndexFile: string;
  readonly txnIndexFile: string;
  offsetIndex: OffsetIndex;
  /** Transactions whose ABORT marker is in this segment (txn-index.ts). */
  txnIndex = new TxnIndex();
  timeIndex: TimeIndex;
  indexIntervalBytes: number;

  /** Bytes in the file that reads may see. */
  sizeBytes = 0;
  /** The offset after the last written batch. */
  nextOffset: number;
  /** Largest batch maxTimestamp written, -1 when none. */
  maxTimestampMs = -1;
  /** Base offset of the batch holding maxTimestampMs. */
  offsetOfMaxTimestamp: number;
  /** Bytes that have offsets, including those still being written (append path only). */
  assignedBytes = 0;
  /** Clock time the first batch was appended (on load: that batch's maxTimestamp); rolls by age. */
  rollingTimestampMs: number | undefined;
  /** Clock time of the last write (on load: the file's mtime); retention for batches without timestamps. */
  lastModifiedMs = 0;
  /** Bytes written since the last fdatasync. */
  unsyncedBytes = 0;

  private handle: FileHandle | undefined;
  /**
   * True when the file is open with O_DSYNC (the log's flush policy was 'sync' when it was opened):
   * a write returns only once its bytes, and the file size that reaches them, are on the disk, in
   * ONE trip through the libuv thread pool where writev + fdatasync take two (each ending in a
   * wake-up of the event loop; docs/performance.md, "The latency path"). Reads are not affected.
   */
  durableWrites = false;
  private lastIndexedPosition = 0;

  constructor(
    readonly dir: string,
    readonly baseOffset: number,
    indexIntervalBytes: number,
  ) {
    this.logFile = path.join(dir, offsetFileName(baseOffset, LOG_SUFFIX));
    this.indexFile = path.join(dir, offsetFileName(baseOffset, INDEX_SUFFIX));
    this.timeIndexFile = path.join(dir, offsetFileName(baseOffset, TIME_INDEX_SUFFIX));
    this.txnIndexFile = path.join(dir, offsetFileName(baseOffset, TXN_INDEX_SUFFIX));
    this.indexIntervalBytes = indexIntervalBytes;
    this.offsetIndex = new OffsetIndex(baseOffset);
    this.timeIndex = new TimeIndex(baseOffset);
    this.nextOffset = baseOffset;
    this.offsetOfMaxTimestamp = baseOffset;
  }

  get isOpen(): boolean {
    return this.handle !== undefined;
  }

  /** The open file; a bug to ask before createFile/openFile. */
  get file(): FileHandle {
    assert(this.handle !== undefined, `segment ${this.logFile} is not open`);
    return this.handle;
  }

  /**
   * Creates the .log file; fails if it exists. `durableWrites`: open it with O_DSYNC (flush policy
   * 'sync'; ignored where the platform has none).
   */
  async createFile(durableWrites = false): Promise<void> {
    assert(this.handle === undefined, `segment ${this.logFile} already open`);
    const flags = fsConstants.O_RDWR | fsConstants.O_CREAT | fsConstants.O_EXCL;
    this.handle = await fs.open(this.logFile, flags | this.dsyncFlag(durableWrites));
  }

  /** Opens an existing .log file; returns its size in bytes and mtime. `durableWrites`: as createFile. */
  async openFile(durableWrites = false): Promise<{ sizeBytes: number; mtimeMs: number }> {
    assert(this.handle === undefined, `segment ${this.logFile} already open`);
    this.handle = await fs.open(this.logFile, fsConstants.O_RDWR | this.dsyncFlag(durableWrites));
    const stat = await this.handle.stat();
    return { sizeBytes: stat.size, mtimeMs: stat.mtimeMs };
  }

  /**
   * Reopens the .log file with or without O_DSYNC (a flush.policy change reaching the segment);
   * false when it already is so. The caller holds the log exclusively: no write or read is in
   * flight on the old descriptor, which is closed. If the open fails, the old one stays.
   */
  async reopenFile(durableWrites: boolean): Promise<boolean> {
    if (!this.needsReopen(durableWrites)) return false;
    const old = this.file;
    // needsReopen: O_DSYNC exists whenever durable writes are asked for here.
    this.handle = await fs.open(this.logFile, fsConstants.O_RDWR | (durableWrites ? (O_DSYNC as number) : 0));
    this.durableWrites = durableWrites;
    await old.close();
    return true;
  }

  /** Whether the file is open otherwise than a policy asking for `durableWrites` would open it. */
  needsReopen(durableWrites: boolean): boolean {
    return (durableWrites && O_DSYNC !== undefined) !== this.durableWrites;
  }

  private dsyncFlag(durableWrites: boolean): number {
    this.durableWrites = durableWrites && O_DSYNC !== undefined;
    return this.durableWrites ? (O_DSYNC as number) : 0;
  }

  /** Records that a batch is now in the file at the current end: sizes, indexes, max timestamp. */
  onBatchWritten(batch: SegmentBatch): void {
    assert(
      batch.position === this.sizeBytes,
      `batch at ${batch.position} written after ${this.sizeBytes} bytes of ${this.logFile}`,
    );
    assert(
      batch.baseOffset >= this.nextOffset,
      `batch ${batch.baseOffset} written after offset ${this.nextOffset} in ${this.logFile}`,
    );
    if (batch.maxTimestamp > this.maxTimestampMs) {
      this.maxTimestampMs = batch.maxTimestamp;
      this.offsetOfMaxTimestamp = batch.baseOffset;
    }
    if (batch.position > 0 && batch.position - this.lastIndexedPosition >= this.indexIntervalBytes) {
      this.offsetIndex.append(batch.baseOffset, batch.position);
      this.lastIndexedPosition = batch.position;
      this.timeIndex.maybeAppend(this.maxTimestampMs, this.offsetOfMaxTimestamp);
    }
    this.sizeBytes = batch.position + batch.sizeBytes;
    this.nextOffset = batch.lastOffset + 1;
  }

  /** Uses indexes loaded from files for a segment whose batches are not rescanned. */
  adoptIndexes(offsetIndex: OffsetIndex, timeIndex: TimeIndex): void {
    this.offsetIndex = offsetIndex;
    this.timeIndex = timeIndex;
    this.lastIndexedPosition =
      offsetIndex.entryCount > 0 ? offsetIndex.entry(offsetIndex.entryCount - 1).position : 0;
    const last = timeIndex.lastEntry();
    if (last) {
      this.maxTimestampMs = last.timestampMs;
      this.offsetOfMaxTimestamp = last.offset;
    }
  }

  /** Reads the index files; undefined for each that is missing. */
  async readIndexFiles(): Promise<{ offsetIndex?: Buffer; timeIndex?: Buffer }> {
    return {
      offsetIndex: await readFileIfExists(this.indexFile),
      timeIndex: await readFileIfExists(this.timeIndexFile),
    };
  }

  /** Forgets all batches (before a rebuild by scanning). */
  resetIndexes(): void {
    this.offsetIndex = new OffsetIndex(this.baseOffset);
    this.timeIndex = new TimeIndex(this.baseOffset);
    this.lastIndexedPosition = 0;
    this.sizeBytes = 0;
    this.assignedBytes = 0;
    this.nextOffset = this.baseOffset;
    this.maxTimestampMs = -1;
    this.offsetOfMaxTimestamp = this.baseOffset;
  }

  /**
   * Rebuilds sizes and indexes by scanning the file's batches from position 0 to `fileBytes`.
   * Stops at the first batch that is not accepted (see batch-scan.ts) and reports it; the caller
   * decides whether to truncate there.
   */
  async rebuild(fileBytes: number, checks: { verifyCrc: boolean; contiguous: boolean }): Promise<ScanResult> {
    this.resetIndexes();
    const result = await scanBatches(
      this.file,
      0,
      fileBytes,
      { ...checks, segmentBaseOffset: this.baseOffset, file: this.logFile },
      (batch) => this.onBatchWritten(batch),
    );
    this.assignedBytes = this.sizeBytes;
    return result;
  }

  /**
   * Continues the indexes over batches after the loaded index (a cleanly closed active segment):
   * scans from the last offset-index entry to `fileBytes`.
   */
  async scanTail(
    fileBytes: number,
    checks: { verifyCrc: boolean; contiguous: boolean },
  ): Promise<ScanResult> {
    const from =
      this.offsetIndex.entryCount > 0
        ? this.offsetIndex.entry(this.offsetIndex.entryCount - 1)
        : { offset: this.baseOffset, position: 0 };
    this.offsetIndex.truncateToPosition(from.position);
    this.timeIndex.truncateToOffset(from.offset);
    const timeEntry = this.timeIndex.lastEntry();
    this.maxTimestampMs = timeEntry?.timestampMs ?? -1;
    this.offsetOfMaxTimestamp = timeEntry?.offset ?? this.baseOffset;
    this.lastIndexedPosition =
      this.offsetIndex.entryCount > 0 ? this.offsetIndex.entry(this.offsetIndex.entryCount - 1).position : 0;
    this.sizeBytes = from.position;
    this.nextOffset = from.offset;
    const result = await scanBatches(
      this.file,
      from.position,
      fileBytes,
      { ...checks, segmentBaseOffset: this.baseOffset, minBaseOffset: from.offset, file: this.logFile },
      (batch) => this.onBatchWritten(batch),
    );
    this.assignedBytes = this.sizeBytes;
    return result;
  }

  /** Cuts the file at `position` (a batch boundary found by a scan) and fsyncs it. */
  async truncateFile(position: number): Promise<void> {
    await this.file.truncate(position);
    await this.file.datasync();
  }

  /**
   * Drops every batch whose last offset is >= `offset` (so the batch holding `offset` goes whole).
   * Returns the bytes removed. Reads and writes must be quiet.
   */
  async truncateTo(offset: number): Promise<number> {
    const start = this.offsetIndex.lookup(offset);
    let cut: ScannedBatch | undefined;
    const scan = await scanBatches(
      this.file,
      start.position,
      this.sizeBytes,
      {
        verifyCrc: false,
        segmentBaseOffset: this.baseOffset,
        minBaseOffset: start.offset,
        file: this.logFile,
      },
      (b) => {
        if (b.lastOffset < offset) return true;
        cut = b;
        return false;
      },
    );
    const position = cut ? cut.position : scan.endPosition;
    const removed = this.sizeBytes - position;
    if (removed === 0) return 0;
    // In a compacted segment `offset` may fall in a gap before the cut batch: end at `offset`.
    const newNextOffset = cut ? Math.min(cut.baseOffset, offset) : scan.nextOffset;
    await this.truncateFile(position);
    this.txnIndex.truncateFrom(newNextOffset);
    this.offsetIndex.truncateToPosition(position);
    this.timeIndex.truncateToOffset(newNextOffset);
    this.lastIndexedPosition =
      this.offsetIndex.entryCount > 0 ? this.offsetIndex.entry(this.offsetIndex.entryCount - 1).position : 0;
    this.sizeBytes = position;
    this.assignedBytes = position;
    this.nextOffset = newNextOffset;
    await this.recomputeMaxTimestamp();
    return removed;
  }

  /** After a truncation: the max timestamp of the batches left (time index + a scan after it). */
  private async recomputeMaxTimestamp(): Promise<void> {
    const last = this.timeIndex.lastEntry();
    this.maxTimestampMs = last?.timestampMs ?? -1;
    this.offsetOfMaxTimestamp = last?.offset ?? this.baseOffset;
    const from = last ? this.offsetIndex.lookup(last.offset) : { offset: this.baseOffset, position: 0 };
    await scanBatches(
      this.file,
      from.position,
      this.sizeBytes,
      {
        verifyCrc: false,
        segmentBaseOffset: this.baseOffset,
        minBaseOffset: from.offset,
        file: this.logFile,
      },
      (b) => {
        if (b.maxTimestamp > this.maxTimestampMs) {
          this.maxTimestampMs = b.maxTimestamp;
          this.offsetOfMaxTimestamp = b.baseOffset;
        }
      },
    );
  }

  /**
   * Sets rollingTimestampMs for a segment that becomes active with batches whose append time is not
   * known (after a load or a truncation): its first batch's maxTimestamp, capped at now; now when
   * that batch has no timestamp; undefined when the segment is empty.
   */
  async initRollingTimestamp(nowMs: number): Promise<void> {
    if (this.sizeBytes < BATCH_HEADER_BYTES) {
      this.rollingTimestampMs = undefined;
      return;
    }
    const header = await readExactly(this.file, this.logFile, 0, BATCH_HEADER_BYTES);
    const firstTimestamp = Number(header.readBigInt64BE(OFFSET_MAX_TIMESTAMP));
    this.rollingTimestampMs = firstTimestamp >= 0 ? Math.min(firstTimestamp, nowMs) : nowMs;
  }

  /**
   * When its first record was written, for max.compaction.lag.ms: the clock time of its first
   * append, else (loaded from disk, or written by the cleaner) the oldest timestamp its time index
   * holds, else its newest. Both fallbacks are at or after the truth, so a segment may be found
   * overdue late, never early.
   */
  firstTimestampMs(): number {
    if (this.rollingTimestampMs !== undefined) return this.rollingTimestampMs;
    if (this.timeIndex.entryCount > 0) return this.timeIndex.entry(0).timestampMs;
    return this.largestTimestampMs();
  }

  /** Newest timestamp for retention: the max batch timestamp, or the last write time without one. */
  largestTimestampMs(): number {
    return this.maxTimestampMs >= 0 ? this.maxTimestampMs : this.lastModifiedMs;
  }

  /**
   * Makes a segment that takes no more appends durable: final time-index entry for the max
   * timestamp, both index files replaced, the .log fdatasynced. The caller fsyncs the folder.
   */
  async finalize(): Promise<void> {
    this.timeIndex.maybeAppend(this.maxTimestampMs, this.offsetOfMaxTimestamp);
    await this.writeIndexFiles();
    await this.sync();
  }

  async writeIndexFiles(): Promise<void> {
    await writeFileAtomic(this.indexFile, Buffer.from(this.offsetIndex.toBytes()), false);
    await writeFileAtomic(this.timeIndexFile, Buffer.from(this.timeIndex.toBytes()), false);
    await this.writeTxnIndexFile();
  }

  /** Writes the aborted-transaction index, or removes its file when it has no entry. */
  async writeTxnIndexFile(): Promise<void> {
    if (this.txnIndex.entryCount === 0) await unlinkIfExists(this.txnIndexFile);
    else await writeFileAtomic(this.txnIndexFile, this.txnIndex.toBytes(), false);
  }

  /** Loads the aborted-transaction index file; a missing or invalid one leaves it empty (says why). */
  async loadTxnIndex(): Promise<string | undefined> {
    const bytes = await readFileIfExists(this.txnIndexFile);
    if (bytes === undefined) return undefined;
    const index = TxnIndex.fromBytes(bytes);
    if (typeof index === 'string') return index;
    this.txnIndex = index;
    return undefined;
  }

  /** fdatasyncs the .log if anything was written since the last sync; true if it did. */
  async sync(): Promise<boolean> {
    if (this.unsyncedBytes === 0 || !this.handle) return false;
    const pending = this.unsyncedBytes;
    await this.handle.datasync();
    this.unsyncedBytes -= pending;
    return true;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  /** Closes and deletes the .log and index files. */
  async deleteFiles(): Promise<void> {
    await this.close();
    await unlinkIfExists(this.logFile);
    await unlinkIfExists(this.indexFile);
    await unlinkIfExists(this.timeIndexFile);
    await unlinkIfExists(this.txnIndexFile);
  }
}
