/**
 * One cleaning pass over one log, as run by the cleaner's worker thread (worker.ts) — synchronous
 * file I/O, since it owns its thread. The main thread plans the pass (log-cleaner.ts) and commits
 * each cleaned segment (../compaction.ts); this file only reads segment files and writes
 * `.cleaned` files.
 *
 *   1. Map: read the dirty part [firstDirtyOffset, firstUncleanableOffset) batch by batch and put
 *      every keyed record's offset into the offset map. When the map cannot take the next batch,
 *      stop there: endOffset = that batch's base offset (the rest is mapped by the next pass).
 *   2. Clean: every segment that starts below endOffset, in groups (planner.ts groupSegments).
 *      Each group's kept batches go to `<first base>.log.cleaned` with their indexes built as the
 *      log builds them; the file is fsynced, then handed to the main thread (the generator yields
 *      it) which swaps it in, and the pass goes on with the next group once that is done.
 *
 * Every batch read is CRC-checked: a damaged batch fails the pass (the partition is then skipped
 * by the cleaner) instead of being copied into a cleaned segment under a fresh CRC.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BATCH_HEADER_BYTES,
  CONTROL_BIT,
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_OFFSET,
  OFFSET_LAST_OFFSET_DELTA,
  OFFSET_PRODUCER_ID,
  OFFSET_RECORD_COUNT,
  readBatchHeader,
} from '../../../common/records/layout';
import { batchContentFault, batchSizeFault, describeFramingFault } from '../../../common/records/framing';
import { TideError } from '../../../common/errors';
import { OffsetIndex } from '../offset-index';
import { TimeIndex } from '../time-index';
import { filterBatch, recordsOf, type FilterContext } from './batch-filter';
import { AbortedRanges, MarkerTracker } from './transactions';
import { OffsetMap } from './offset-map';
import { groupSegments } from './planner';
import { RecordCursor } from './record-walk';
import { Throttler } from './throttle';

/** Suffix of a cleaned segment being written: `<base>.log.cleaned`. */
export const CLEANED_SUFFIX = '.cleaned';

/** One segment as the pass sees it. */
export interface CleanJobSegment {
  baseOffset: number;
  /** Absolute path of the .log file. */
  file: string;
  /** Bytes of the file that belong to the log (the file is not read past this). */
  sizeBytes: number;
  /** The next segment's base offset. */
  endOffset: number;
}

/** Everything a pass needs, planned on the main thread (../compaction.ts plan()). */
export interface CleanJob {
  /** The partition folder. */
  dir: string;
  /** Segments from the log's first up to the last cleanable one, oldest first. */
  segments: CleanJobSegment[];
  firstDirtyOffset: number;
  /** segments[segments.length - 1].endOffset. */
  firstUncleanableOffset: number;
  nowMs: number;
  deleteRetentionMs: number;
  /** [producerId, last offset of its latest batch] for every producer in the producer state. */
  producerLastOffsets: Array<[number, number]>;
  /**
   * [producerId, first offset, ABORT marker offset] of the aborted transactions below
   * firstUncleanableOffset (the segments' .txnindex): their records are never mapped and are
   * dropped. Absent = none (jobs planned before transactions existed).
   */
  abortedTransactions?: Array<[number, number, number]>;
  /** Largest cleaned segment (the topic's segment.bytes). */
  segmentBytes: number;
  indexIntervalBytes: number;
  /** Memory of the offset map. */
  dedupeBufferBytes: number;
  dedupeLoadFactor: number;
  /** Read + write rate limit; <= 0 = none. */
  ioBytesPerSecond: number;
  /** Size of each sequential read. */
  ioBufferBytes: number;
}

/** A cleaned segment, fsynced and ready to be swapped in for its originals. */
export interface CleanedSegment {
  baseOffset: number;
  /** Base offsets of the segments it replaces (the first equals baseOffset). */
  replaces: number[];
  /** Their sizes when the pass read them (the swap checks they did not change). */
  replacedBytes: number[];
  /** `<dir>/<baseOffset>.log.cleaned`. */
  file: string;
  sizeBytes: number;
  /** Equal to the last replaced segment's end offset. */
  endOffset: number;
  offsetIndex: Uint8Array;
  timeIndex: Uint8Array;
}

/** Counters of one pass. */
export interface CleanStats {
  bytesRead: number;
  bytesWritten: number;
  /** Bytes of the segments that were cleaned (input of the clean phase). */
  bytesCleaned: number;
  recordsRead: number;
  recordsKept: number;
  batchesRewritten: number;
  batchesDropped: number;
  tombstonesDropped: number;
  keylessDropped: number;
  /** Records of aborted transactions dropped. */
  abortedDropped: number;
  mapEntries: number;
  /** Fraction of the map's capacity used. */
  mapUtilization: number;
  throttledMs: number;
  elapsedMs: number;
}

/** The outcome of a pass that ran to its end. */
export interface CleanJobResult {
  /** Everything below this is clean now: the new cleaner checkpoint. */
  endOffset: number;
  segmentsCleaned: number;
  /** Smallest delete horizon of the batches still holding tombstones, -1 if none. */
  nextDeleteHorizonMs: number;
  stats: CleanStats;
}

/** The pass's view of its thread: abort flag, clock, sleep (for the throttle). */
export interface JobIo {
  /** True once the main thread asked the pass to stop. */
  aborted(): boolean;
  nowMs(): number;
  sleep(ms: number): void;
}

/** Thrown (inside the worker) when the main thread aborted the pass. */
export class CleanAborted extends Error {
  constructor() {
    super('cleaning aborted');
    this.name = 'CleanAborted';
  }
}

/**
 * Runs a pass. Yields each cleaned segment; the driver resumes with true once it is swapped in,
 * or false to stop the pass (then no checkpoint moves and the result is not used).
 */
export function* runCleanJob(job: CleanJob, io: JobIo): Generator<CleanedSegment, CleanJobResult, boolean> {
  const started = io.nowMs();
  const throttle = new Throttler(
    job.ioBytesPerSecond,
    () => io.nowMs(),
    (ms) => io.sleep(ms),
  );
  const stats: CleanStats = {
    bytesRead: 0,
    bytesWritten: 0,
    bytesCleaned: 0,
    recordsRead: 0,
    recordsKept: 0,
    batchesRewritten: 0,
    batchesDropped: 0,
    tombstonesDropped: 0,
    keylessDropped: 0,
    abortedDropped: 0,
    mapEntries: 0,
    mapUtilization: 0,
    throttledMs: 0,
    elapsedMs: 0,
  };
  const map = new OffsetMap(job.dedupeBufferBytes, job.dedupeLoadFactor);
  const reader = (segment: CleanJobSegment): SegmentReader =>
    new SegmentReader(segment, job.ioBufferBytes, io, (bytes) => {
      stats.bytesRead += bytes;
      throttle.maybeThrottle(bytes);
    });

  const aborted = new AbortedRanges(job.abortedTransactions ?? []);
  const endOffset = buildMap(job, map, reader, aborted);
  stats.mapEntries = map.size;
  stats.mapUtilization = map.utilization;

  const toClean = job.segments.filter((s) => s.baseOffset < endOffset);
  const ctx: FilterContext = {
    map,
    nowMs: job.nowMs,
    deleteRetentionMs: job.deleteRetentionMs,
    producerLastOffsets: new Map(job.producerLastOffsets),
    aborted,
    markers: new MarkerTracker(),
  };
  let nextDeleteHorizonMs = -1;
  for (const [from, to] of groupSegments(toClean, job.segmentBytes)) {
    const group = toClean.slice(from, to);
    const writer = new CleanedWriter(job, group, (bytes) => {
      stats.bytesWritten += bytes;
      throttle.maybeThrottle(bytes);
    });
    try {
      for (let g = 0; g < group.length; g++) {
        stats.bytesCleaned += group[g].sizeBytes;
        const batches = reader(group[g]);
        for (let b = batches.next(); b; b = batches.next()) {
          const last = g === group.length - 1 && batches.atEnd;
          const outcome = filterBatch(b, ctx, last);
          stats.recordsRead += outcome.recordsIn;
          stats.recordsKept += outcome.recordsKept;
          stats.tombstonesDropped += outcome.tombstonesDropped;
          stats.keylessDropped += outcome.keylessDropped;
          stats.abortedDropped += outcome.abortedDropped;
          if (
            outcome.tombstoneHorizonMs >= 0 &&
            (nextDeleteHorizonMs < 0 || outcome.tombstoneHorizonMs < nextDeleteHorizonMs)
          )
            nextDeleteHorizonMs = outcome.tombstoneHorizonMs;
          if (outcome.kind === 'drop') {
            stats.batchesDropped++;
            continue;
          }
          ctx.markers?.written(
            b.readInt16BE(OFFSET_ATTRIBUTES),
            Number(b.readBigInt64BE(OFFSET_PRODUCER_ID)),
          );
          if (outcome.kind === 'rewrite') stats.batchesRewritten++;
          writer.append(outcome.kind === 'keep' ? b : (outcome.bytes as Buffer), outcome.maxTimestamp);
        }
      }
      if (io.aborted()) throw new CleanAborted();
      const cleaned = writer.finish();
      if (!(yield cleaned)) throw new CleanAborted();
    } catch (err) {
      writer.discard();
      throw err;
    }
  }
  stats.throttledMs = throttle.throttledMs;
  stats.elapsedMs = io.nowMs() - started;
  return { endOffset, segmentsCleaned: toClean.length, nextDeleteHorizonMs, stats };
}

/** Phase 1: maps the dirty part; returns the offset after the last batch mapped. */
function buildMap(
  job: CleanJob,
  map: OffsetMap,
  reader: (s: CleanJobSegment) => SegmentReader,
  aborted: AbortedRanges,
): number {
  let endOffset = job.firstDirtyOffset;
  for (const segment of job.segments) {
    if (segment.endOffset <= job.firstDirtyOffset) continue;
    const batches = reader(segment);
    for (let b = batches.next(); b; b = batches.next()) {
      const baseOffset = Number(b.readBigInt64BE(OFFSET_BASE_OFFSET));
      const lastOffset = baseOffset + b.readInt32BE(OFFSET_LAST_OFFSET_DELTA);
      if (lastOffset < job.firstDirtyOffset) continue;
      const recordCount = b.readInt32BE(OFFSET_RECORD_COUNT);
      if (map.isFull(recordCount)) {
        if (endOffset === job.firstDirtyOffset && map.size === 0)
          throw new TideError(
            'KAFKA_STORAGE_ERROR',
            `the cleaner's offset map (${job.dedupeBufferBytes} bytes, ${map.maxEntries} keys) cannot hold one batch of ${recordCount} records at offset ${baseOffset}; raise the dedupe buffer size`,
          );
        return Math.max(endOffset, baseOffset);
      }
      // Records of aborted transactions never supersede anything: they are dropped, not kept.
      if ((b.readInt16BE(OFFSET_ATTRIBUTES) & CONTROL_BIT) === 0 && !aborted.holds(readBatchHeader(b, 0))) {
        const header = readBatchHeader(b, 0);
        const data = recordsOf(b, header);
        const cursor = new RecordCursor(data, 0, data.length, header.recordCount);
        while (cursor.next()) {
          const offset = baseOffset + cursor.offsetDelta;
          if (cursor.keyLength >= 0 && offset >= job.firstDirtyOffset)
            map.put(data, cursor.keyStart, cursor.keyStart + cursor.keyLength, offset);
        }
      }
      endOffset = lastOffset + 1;
    }
    endOffset = Math.max(endOffset, segment.endOffset);
  }
  return Math.min(Math.max(endOffset, job.firstDirtyOffset), job.firstUncleanableOffset);
}

/**
 * Reads one segment file sequentially in ioBufferBytes chunks and hands out whole batches (views,
 * valid until the next call), each checked: framing, magic, CRC32C (common/records/framing.ts).
 */
class SegmentReader {
  /** True when the batch last returned is the segment's last. */
  atEnd = false;
  private readonly fd: number;
  private chunk: Buffer;
  private chunkPos = 0; // file position of chunk[0]
  private chunkLen = 0;
  private at = 0; // next batch's position within the chunk
  private closed = false;
  private readonly chunkBytes: number;

  constructor(
    private readonly segment: CleanJobSegment,
    chunkBytes: number,
    private readonly io: JobIo,
    private readonly onRead: (bytes: number) => void,
  ) {
    this.fd = fs.openSync(segment.file, 'r');
    this.chunkBytes = Math.max(Math.min(chunkBytes, segment.sizeBytes), BATCH_HEADER_BYTES);
    this.chunk = Buffer.alloc(0);
  }

  next(): Buffer | undefined {
    if (this.io.aborted()) {
      this.close();
      throw new CleanAborted();
    }
    const position = this.chunkPos + this.at;
    if (position >= this.segment.sizeBytes) {
      this.close();
      return undefined;
    }
    try {
      if (this.chunkLen - this.at < BATCH_HEADER_BYTES) this.fill(position, BATCH_HEADER_BYTES);
      const size = batchSizeFault(this.chunk, this.at, this.segment.sizeBytes - position);
      if (typeof size !== 'number') return this.corrupt(position, describeFramingFault(size, 'batch'));
      if (this.chunkLen - this.at < size) this.fill(position, size);
      const fault = batchContentFault(this.chunk, this.at, size, { crc: true, offsets: 'unchecked' });
      if (fault) this.corrupt(position, describeFramingFault(fault, 'batch'));
      const batch = this.chunk.subarray(this.at, this.at + size);
      this.at += size;
      this.atEnd = this.chunkPos + this.at >= this.segment.sizeBytes;
      if (this.atEnd) this.close();
      return batch;
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /**
   * Reads into a fresh chunk so that `need` bytes from file position `position` are in it (batches
   * handed out earlier stay valid: the writer keeps views of them until it writes).
   */
  private fill(position: number, need: number): void {
    this.chunk = Buffer.allocUnsafe(Math.max(need, this.chunkBytes));
    const want = Math.min(this.chunk.length, this.segment.sizeBytes - position);
    let got = 0;
    while (got < want) {
      const n = fs.readSync(this.fd, this.chunk, got, want - got, position + got);
      if (n === 0) break;
      got += n;
    }
    if (got < need) this.corrupt(position, `file ends after ${position + got} bytes`);
    this.onRead(got);
    this.chunkPos = position;
    this.chunkLen = got;
    this.at = 0;
  }

  private corrupt(position: number, why: string): never {
    throw new TideError(
      'KAFKA_STORAGE_ERROR',
      `cleaner: corrupt batch (${why}) in ${this.segment.file} at position ${position}`,
    );
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}

const WRITE_BUFFER_BYTES = 1024 * 1024;

/** Writes one cleaned segment and builds its indexes exactly as LogSegment.onBatchWritten does. */
class CleanedWriter {
  private readonly file: string;
  private readonly fd: number;
  private readonly offsetIndex: OffsetIndex;
  private readonly timeIndex: TimeIndex;
  private readonly baseOffset: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private position = 0;
  private written = 0;
  private lastIndexedPosition = 0;
  private maxTimestampMs = -1;
  private offsetOfMaxTimestamp: number;
  private done = false;

  constructor(
    private readonly job: CleanJob,
    private readonly group: CleanJobSegment[],
    private readonly onWrite: (bytes: number) => void,
  ) {
    this.baseOffset = group[0].baseOffset;
    this.file = path.join(job.dir, path.basename(group[0].file) + CLEANED_SUFFIX);
    this.fd = fs.openSync(this.file, 'w');
    this.offsetIndex = new OffsetIndex(this.baseOffset);
    this.timeIndex = new TimeIndex(this.baseOffset);
    this.offsetOfMaxTimestamp = this.baseOffset;
  }

  append(batch: Buffer, maxTimestamp: number): void {
    const baseOffset = Number(batch.readBigInt64BE(OFFSET_BASE_OFFSET));
    const position = this.position;
    if (maxTimestamp > this.maxTimestampMs) {
      this.maxTimestampMs = maxTimestamp;
      this.offsetOfMaxTimestamp = baseOffset;
    }
    if (position > 0 && position - this.lastIndexedPosition >= this.job.indexIntervalBytes) {
      this.offsetIndex.append(baseOffset, position);
      this.lastIndexedPosition = position;
      this.timeIndex.maybeAppend(this.maxTimestampMs, this.offsetOfMaxTimestamp);
    }
    this.position += batch.length;
    this.pending.push(batch);
    this.pendingBytes += batch.length;
    if (this.pendingBytes >= WRITE_BUFFER_BYTES) this.flush();
  }

  finish(): CleanedSegment {
    this.flush();
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    this.done = true;
    this.timeIndex.maybeAppend(this.maxTimestampMs, this.offsetOfMaxTimestamp);
    return {
      baseOffset: this.baseOffset,
      replaces: this.group.map((s) => s.baseOffset),
      replacedBytes: this.group.map((s) => s.sizeBytes),
      file: this.file,
      sizeBytes: this.position,
      endOffset: this.group[this.group.length - 1].endOffset,
      offsetIndex: Uint8Array.from(this.offsetIndex.toBytes()),
      timeIndex: Uint8Array.from(this.timeIndex.toBytes()),
    };
  }

  /**
   * Closes and deletes the file if it is unfinished. A finished file has been handed to the main
   * thread, which swaps it in or deletes it: deleting it here too could pull it away from under a
   * commit that is renaming it.
   */
  discard(): void {
    if (this.done) return;
    this.done = true;
    fs.closeSync(this.fd);
    fs.rmSync(this.file, { force: true });
  }

  private flush(): void {
    if (this.pendingBytes === 0) return;
    const data = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    let done = 0;
    while (done < data.length)
      done += fs.writeSync(this.fd, data, done, data.length - done, this.written + done);
    this.written += data.length;
    this.onWrite(data.length);
    this.pending = [];
    this.pendingBytes = 0;
  }
}
