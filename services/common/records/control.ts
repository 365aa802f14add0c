/**
 * Transaction control batches (COMMIT/ABORT markers) in Kafka's format, and the read_committed
 * filter that drops the records of aborted transactions.
 *
 * A control batch has attributes transactional | control (bits 4 and 5), no compression, the
 * producer id and epoch of the transaction, baseSequence -1 and exactly one record:
 *
 *   key    int16 version (0) · int16 type (0 = ABORT, 1 = COMMIT)
 *   value  int16 version (0) · int32 coordinatorEpoch
 *
 * Only the transaction coordinator writes them (through the broker's WriteTxnMarkers); producers
 * may not send them. Consumers never see their records as user records.
 */
import { TideError } from '../errors';
import { decodeBatch, encodeBatch } from './codec';
import {
  CONTROL_BIT,
  TRANSACTIONAL_BIT,
  OFFSET_ATTRIBUTES,
  lastOffsetOf,
  writeBatchCrc,
  type BatchHeader,
} from './layout';

export type ControlType = 'ABORT' | 'COMMIT';

const CONTROL_TYPE_CODES: Record<ControlType, number> = { ABORT: 0, COMMIT: 1 };

/** An aborted transaction a read_committed fetch must skip: the producer's records from firstOffset on. */
export interface AbortedTransaction {
  producerId: number;
  firstOffset: number;
}

export interface ControlBatchInput {
  type: ControlType;
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
  timestampMs: number;
}

/** Builds one control batch (offset and partitionLeaderEpoch are set by the broker on append). */
export function encodeControlBatch(input: ControlBatchInput): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(CONTROL_TYPE_CODES[input.type], 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(input.coordinatorEpoch, 2);
  const batch = encodeBatch([{ key, value, timestampMs: input.timestampMs }], {
    producerId: input.producerId,
    producerEpoch: input.producerEpoch,
    baseSequence: -1,
    transactional: true,
    nowMs: input.timestampMs,
  });
  batch.writeInt16BE(
    batch.readInt16BE(OFFSET_ATTRIBUTES) | CONTROL_BIT | TRANSACTIONAL_BIT,
    OFFSET_ATTRIBUTES,
  );
  writeBatchCrc(batch, 0);
  return batch;
}

export function isControl(attributes: number): boolean {
  return (attributes & CONTROL_BIT) !== 0;
}

export function isTransactional(attributes: number): boolean {
  return (attributes & TRANSACTIONAL_BIT) !== 0;
}

/**
 * The marker type of the control batch at buf[at] (whole batch there). Throws INVALID_RECORD
 * when it is not a well-formed control batch: one record whose key is version 0 and a known type.
 */
export function controlTypeOf(buf: Buffer, at = 0): ControlType {
  const { header, records } = decodeBatch(buf, at);
  const fail = (why: string): never => {
    throw new TideError('INVALID_RECORD', `control batch at byte ${at}: ${why}`);
  };
  if (!isControl(header.attributes)) fail('the control bit is not set');
  if (records.length !== 1) fail(`holds ${records.length} records, expected 1`);
  const key = records[0].key;
  if (key === null || key.length < 4) return fail('key shorter than 4 bytes');
  const version = key.readInt16BE(0);
  const type = key.readInt16BE(2);
  if (version !== 0) fail(`unknown control key version ${version}`);
  if (type === 0) return 'ABORT';
  if (type === 1) return 'COMMIT';
  return fail(`unknown control type ${type}`);
}

/**
 * Kafka's read_committed filter over the batches of one fetch, in offset order: a transactional
 * batch of producer P is dropped when an aborted transaction of P started at or before it and
 * P's ABORT marker has not been passed yet. Control batches are always dropped by the callers.
 */
export class AbortedFilter {
  private readonly pending: AbortedTransaction[];
  private readonly active = new Set<number>();

  constructor(aborted: readonly AbortedTransaction[]) {
    this.pending = [...aborted].sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** True when the batch's records belong to an aborted transaction. Call for every batch, in order. */
  skips(
    header: Pick<BatchHeader, 'attributes' | 'producerId' | 'baseOffset' | 'lastOffsetDelta'>,
    marker?: ControlType,
  ): boolean {
    const last = lastOffsetOf(header);
    while (this.pending.length > 0 && this.pending[0].firstOffset <= last)
      this.active.add((this.pending.shift() as AbortedTransaction).producerId);
    if (isControl(header.attributes)) {
      if (marker === 'ABORT') this.active.delete(header.producerId);
      return true;
    }
    return isTransactional(header.attributes) && this.active.has(header.producerId);
  }
}
