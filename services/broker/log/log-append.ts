/**
 * The append path of a partition log, and rolling (see the header of partition-log.ts for the
 * steps): producer appends (offsets assigned here) and follower appends (offsets as the leader gave
 * them) both end in assignAndWrite, which rolls when a batch would not fit the active segment,
 * patches offsets in place and queues the bytes on the group-commit writer.
 */
import * as path from 'node:path';
import { TideError } from '../../common/errors';
import {
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_TIMESTAMP,
  OFFSET_MAX_TIMESTAMP,
  TIMESTAMP_TYPE_BIT,
  patchBaseOffset,
  patchPartitionLeaderEpoch,
  writeBatchCrc,
} from '../../common/records/layout';
import { writeOffsetCheckpoint } from './checkpoint';
import { validateFollowerBatches } from './follower-append';
import type { AppendOptions, AppendResult } from './interface';
import type { PartitionLogState } from './log-state';
import { RECOVERY_POINT_FILE } from './names';
import { encodeProducerSnapshot } from './producer-snapshot';
import type { CompletedTxn, ProducerBatch, ProducerBatchInfo } from './producer-state';
import type { AbortedTxnEntry } from './txn-index';
import type { ReadWriteGate } from './read-write-gate';
import { rollReason, type RollReason } from './roll';
import { LogSegment, type SegmentBatch } from './segment';
import { validateBatches, type IncomingBatch } from './validate';

/** The index entry of an aborted transaction, its marker just applied to the producer state. */
export function abortedEntry(log: PartitionLogState, completed: CompletedTxn): AbortedTxnEntry {
  return {
    producerId: completed.producerId,
    firstOffset: completed.firstOffset,
    lastOffset: completed.lastOffset,
    lastStableOffset: log.producers.firstOpenOffset() ?? completed.lastOffset + 1,
  };
}

export class LogAppender {
  constructor(
    private readonly log: PartitionLogState,
    private readonly gate: ReadWriteGate,
  ) {}

  append(batches: Buffer, options: AppendOptions): Promise<AppendResult> {
    if (this.log.status !== 'open') return Promise.reject(this.log.unavailable());
    const exclusive = this.gate.exclusive;
    if (exclusive) return exclusive.then(() => this.append(batches, options));
    try {
      return this.appendNow(batches, options);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  appendAsFollower(batches: Buffer): Promise<AppendResult> {
    if (this.log.status !== 'open') return Promise.reject(this.log.unavailable());
    const exclusive = this.gate.exclusive;
    if (exclusive) return exclusive.then(() => this.appendAsFollower(batches));
    try {
      return this.appendAsFollowerNow(batches);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private appendNow(request: Buffer, options: AppendOptions): Promise<AppendResult> {
    const log = this.log;
    const leaderEpoch = options.leaderEpoch;
    if (!Number.isInteger(leaderEpoch) || leaderEpoch < -1 || leaderEpoch > 0x7fff_ffff) {
      throw new TideError('INVALID_REQUEST', `leaderEpoch ${leaderEpoch} is not an int32 >= -1`);
    }
    const control = options.origin === 'coordinator';
    const incoming = validateBatches(request, log.config.maxMessageBytes, {
      requireKeys: log.cleanup.compact && !control,
      allowControl: control,
      allowUnsequenced: options.origin === 'group-coordinator',
    });
    const nowMs = log.clock.nowMs();
    const logAppendTime = log.config.timestampType === 'LogAppendTime';
    // Check every idempotent batch (against the state plus the request's earlier batches) first.
    const sequences = log.producers.begin({ topic: log.topic, partition: log.partition });
    const producerInfos: Array<ProducerBatchInfo | undefined> = [];
    const duplicates: ProducerBatch[] = [];
    let offset = log.nextOffset;
    for (const b of incoming) {
      let info: ProducerBatchInfo | undefined;
      if (b.producerId >= 0) {
        info = {
          producerId: b.producerId,
          epoch: b.producerEpoch,
          firstSeq: b.baseSequence,
          lastOffsetDelta: b.lastOffsetDelta,
          firstOffset: offset,
          maxTimestamp: logAppendTime ? nowMs : b.maxTimestamp,
          transactional: b.transactional,
          marker: b.marker,
        };
        const check = sequences.check(info);
        if (check.duplicate) {
          duplicates.push(check.original);
          continue;
        }
      }
      producerInfos.push(info);
      offset += b.lastOffsetDelta + 1;
    }
    if (duplicates.length > 0) return this.duplicateResult(duplicates, incoming.length);

    const baseOffset = log.nextOffset;
    if (log.epochs.assign(leaderEpoch, baseOffset)) log.epochsDirty = true;
    const done = this.assignAndWrite(request, incoming, producerInfos, leaderEpoch, logAppendTime, nowMs);
    // A failed writer rejects the write: those bytes never reach the log, so nobody may see them.
    if (!log.writer.failure) options.onAssigned?.(request, baseOffset, log.nextOffset);
    const result: AppendResult = {
      baseOffset,
      lastOffset: log.nextOffset - 1,
      logAppendTimeMs: logAppendTime ? nowMs : -1,
      logStartOffset: log.startOffset,
      duplicate: false,
    };
    return done.then(() => result);
  }

  /** A request that is entirely a retry: the original offsets, once the originals are written. */
  private duplicateResult(duplicates: ProducerBatch[], batchCount: number): Promise<AppendResult> {
    if (duplicates.length !== batchCount) {
      throw new TideError(
        'INVALID_RECORD',
        `append request mixes ${duplicates.length} retried batches with ${batchCount - duplicates.length} new ones`,
        {
          context: { topic: this.log.topic, partition: this.log.partition },
        },
      );
    }
    const result: AppendResult = {
      baseOffset: duplicates[0].firstOffset,
      lastOffset: duplicates[duplicates.length - 1].lastOffset,
      logAppendTimeMs: -1,
      logStartOffset: this.log.startOffset,
      duplicate: true,
    };
    return this.log.writer.barrier().then(() => result);
  }

  private appendAsFollowerNow(batches: Buffer): Promise<AppendResult> {
    const log = this.log;
    const incoming = validateFollowerBatches(batches, log.nextOffset, !log.cleanup.compact);
    const producerInfos = incoming.map((b): ProducerBatchInfo | undefined =>
      b.producerId < 0
        ? undefined
        : {
            producerId: b.producerId,
            epoch: b.producerEpoch,
            firstSeq: b.baseSequence,
            lastOffsetDelta: b.lastOffsetDelta,
            firstOffset: b.baseOffset,
            maxTimestamp: b.maxTimestamp,
            transactional: b.transactional,
            marker: b.marker,
          },
    );
    for (const b of incoming) {
      if (log.epochs.assign(b.partitionLeaderEpoch, b.baseOffset)) log.epochsDirty = true;
    }
    const done = this.assignAndWrite(batches, incoming, producerInfos, undefined, false, log.clock.nowMs());
    const result: AppendResult = {
      baseOffset: incoming[0].baseOffset,
      lastOffset: incoming[incoming.length - 1].lastOffset,
      logAppendTimeMs: -1,
      logStartOffset: log.startOffset,
      duplicate: false,
    };
    return done.then(() => result);
  }

  /**
   * Rolls as needed, patches offsets in place, updates the producer state batch by batch (so that
   * a snapshot taken at a roll holds exactly the batches below the new segment), queues the bytes.
   * Synchronous up to the queueing; nothing here can fail once validation passed.
   * leaderEpoch undefined = a follower append: batches keep the offsets and epochs they carry.
   */
  private assignAndWrite(
    request: Buffer,
    incoming: ReadonlyArray<IncomingBatch & { baseOffset?: number }>,
    producerInfos: Array<ProducerBatchInfo | undefined>,
    leaderEpoch: number | undefined,
    logAppendTime: boolean,
    nowMs: number,
  ): Promise<void> {
    const log = this.log;
    let segment = log.active;
    let chunkStart = 0;
    let chunkPosition = segment.assignedBytes;
    let written: SegmentBatch[] = [];
    const compactionLagMs = log.cleanup.compact ? log.config.maxCompactionLagMs : undefined;
    for (let i = 0; i < incoming.length; i++) {
      const b = incoming[i];
      if (b.baseOffset !== undefined) log.nextOffset = b.baseOffset;
      const lastOffset = log.nextOffset + b.lastOffsetDelta;
      const reason = rollReason(
        segment,
        { sizeBytes: b.sizeBytes, lastOffset },
        log.config,
        nowMs,
        compactionLagMs,
      );
      if (reason) {
        // Writes complete in order, so the promise of the request's last write covers this one.
        if (written.length > 0)
          void this.queueWrite(
            segment,
            request.subarray(chunkStart, b.position),
            chunkPosition,
            written,
            nowMs,
          );
        written = [];
        chunkStart = b.position;
        segment = this.roll(reason, nowMs);
        chunkPosition = 0;
      }
      const producerInfo = producerInfos[i];
      if (producerInfo) {
        const completed = log.producers.replay(producerInfo);
        if (completed?.aborted) segment.txnIndex.append(abortedEntry(log, completed));
      }
      if (leaderEpoch !== undefined) {
        patchBaseOffset(request, b.position, log.nextOffset);
        patchPartitionLeaderEpoch(request, b.position, leaderEpoch);
      }
      let maxTimestamp = b.maxTimestamp;
      if (logAppendTime) {
        request.writeInt16BE(
          request.readInt16BE(b.position + OFFSET_ATTRIBUTES) | TIMESTAMP_TYPE_BIT,
          b.position + OFFSET_ATTRIBUTES,
        );
        request.writeBigInt64BE(BigInt(nowMs), b.position + OFFSET_BASE_TIMESTAMP);
        request.writeBigInt64BE(BigInt(nowMs), b.position + OFFSET_MAX_TIMESTAMP);
        writeBatchCrc(request, b.position, b.sizeBytes);
        maxTimestamp = nowMs;
      }
      written.push({
        baseOffset: log.nextOffset,
        lastOffset,
        maxTimestamp,
        position: segment.assignedBytes,
        sizeBytes: b.sizeBytes,
      });
      if (segment.assignedBytes === 0) segment.rollingTimestampMs = nowMs;
      segment.assignedBytes += b.sizeBytes;
      log.nextOffset = lastOffset + 1;
    }
    return this.queueWrite(
      segment,
      chunkStart === 0 ? request : request.subarray(chunkStart),
      chunkPosition,
      written,
      nowMs,
    );
  }

  private queueWrite(
    segment: LogSegment,
    bytes: Buffer,
    position: number,
    batches: SegmentBatch[],
    nowMs: number,
  ): Promise<void> {
    return this.log.writer.write(segment, bytes, position, () => {
      for (const batch of batches) segment.onBatchWritten(batch);
      segment.lastModifiedMs = nowMs;
      this.log.writtenEndOffset = batches[batches.length - 1].lastOffset + 1;
    });
  }

  /**
   * Starts a new active segment at the log end, synchronously (offsets keep flowing); the writer
   * then finishes the old one (indexes, fdatasync), creates the new file, writes the producer
   * snapshot for the new base offset and moves the recovery point, before any write to the new one.
   */
  roll(reason: RollReason | 'retention', nowMs: number): LogSegment {
    const log = this.log;
    const old = log.active;
    const segment = new LogSegment(log.dir, log.nextOffset, log.config.indexIntervalBytes);
    segment.lastModifiedMs = nowMs;
    log.segments.push(segment);
    const snapshot = encodeProducerSnapshot(log.producers.all());
    log.logger.info(
      {
        reason,
        baseOffset: segment.baseOffset,
        previousBaseOffset: old.baseOffset,
        previousBytes: old.assignedBytes,
      },
      'rolling segment',
    );
    log.writer
      .task(async () => {
        await old.finalize();
        await segment.createFile(log.config.flushPolicy === 'sync');
        await log.snapshots.write(segment.baseOffset, snapshot);
        await writeOffsetCheckpoint(path.join(log.dir, RECOVERY_POINT_FILE), segment.baseOffset);
        log.recoveryPoint = segment.baseOffset;
        await log.pruneSnapshots(segment.baseOffset);
      })
      .catch(() => undefined); // the writer reports failures (onFailure) and fails later appends
    return segment;
  }
}
