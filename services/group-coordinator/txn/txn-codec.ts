/**
 * Records of the transaction coordinator, in the byte framing of offsets-codec.ts.
 *
 * `__transaction_state` (compacted; the last record per key is the truth):
 *
 *   key   := int16 type, then
 *            type 0 (transaction):   string transactionalId
 *            type 3 (shard marker):  int32 shard, int64 coordinatorEpoch   (as in __consumer_offsets)
 *   value := int16 version (0), int64 coordinatorEpoch, then
 *            type 0: blob TxnMetadata as JSON
 *            type 3: int64 timestampMs
 *
 * Transactional offsets are not records of this file: a TxnOffsetCommit appends ordinary offset
 * records (type 0 of offsets-codec.ts) to `__consumer_offsets` in a transactional batch of the
 * producer, closed by the transaction's COMMIT or ABORT marker (docs/transactions.md). Type 4
 * (pending offsets keyed by producer, completed by a second append) was written by earlier
 * versions; it is no longer written, and readers skip it as unknown.
 *
 * Unknown types and versions decode as `unknown` (skipped); bad framing throws CORRUPT_MESSAGE.
 */
import { TideError } from '../../common/errors';
import { KEY_SHARD_MARKER, Reader, VALUE_VERSION, Writer, decodeOffsetsRecord } from '../offsets-codec';
import { TXN_STATES, type TxnMetadata, type TxnStateName } from './txn-state';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';
export const KEY_TRANSACTION = 0;
export const KEY_PENDING_TXN_OFFSET = 4;

export type TxnStateRecord =
  | {
      type: 'txn';
      transactionalId: string;
      value: { coordinatorEpoch: number; metadata: TxnMetadata } | null;
    }
  | { type: 'marker'; shard: number; value: { coordinatorEpoch: number; timestampMs: number } | null }
  | { type: 'unknown'; why: string };

export function txnKey(transactionalId: string): Buffer {
  return new Writer().int16(KEY_TRANSACTION).string(transactionalId).done();
}

export function txnValue(coordinatorEpoch: number, m: TxnMetadata): Buffer {
  return new Writer()
    .int16(VALUE_VERSION)
    .int64(coordinatorEpoch)
    .blob(Buffer.from(JSON.stringify(m), 'utf8'))
    .done();
}

function corrupt(message: string): TideError {
  return new TideError('CORRUPT_MESSAGE', `malformed ${TRANSACTION_STATE_TOPIC} record: ${message}`, {
    retriable: false,
  });
}

export function decodeTxnStateRecord(key: Buffer | null, value: Buffer | null): TxnStateRecord {
  if (!key) throw corrupt('a record without a key');
  const k = new Reader(key, 'key');
  const type = k.int16('type');
  if (type === KEY_SHARD_MARKER) {
    // Same layout as the offsets topic's markers.
    const r = decodeOffsetsRecord(key, value);
    if (r.type === 'marker') return r;
    return { type: 'unknown', why: r.type === 'unknown' ? r.why : `marker decoded as ${r.type}` };
  }
  if (type !== KEY_TRANSACTION) return { type: 'unknown', why: `key type ${type}` };
  const transactionalId = k.string('transactionalId');
  k.end();
  if (!value) return { type: 'txn', transactionalId, value: null };
  const v = new Reader(value, 'value');
  const version = v.int16('version');
  if (version !== VALUE_VERSION) return { type: 'unknown', why: `value version ${version}` };
  const coordinatorEpoch = v.int64('coordinatorEpoch');
  const json = v.blob('metadata').toString('utf8');
  v.end();
  return {
    type: 'txn',
    transactionalId,
    value: { coordinatorEpoch, metadata: parseMetadata(transactionalId, json) },
  };
}

function parseMetadata(id: string, json: string): TxnMetadata {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw corrupt(`transaction ${id}: metadata is not JSON`);
  }
  const int = (field: string): number => {
    const x = raw[field];
    if (typeof x !== 'number' || !Number.isSafeInteger(x))
      throw corrupt(`transaction ${id}: ${field} is not an integer`);
    return x;
  };
  const strings = (field: string): string[] => {
    const x = raw[field];
    if (!Array.isArray(x) || x.some((s) => typeof s !== 'string'))
      throw corrupt(`transaction ${id}: ${field} is not a list of strings`);
    return x as string[];
  };
  const state = raw.state as TxnStateName;
  if (!TXN_STATES.includes(state)) throw corrupt(`transaction ${id}: unknown state ${String(raw.state)}`);
  if (raw.transactionalId !== id)
    throw corrupt(`transaction ${id}: the value names ${String(raw.transactionalId)}`);
  const reserved = raw.reserved as
    { producerEpoch?: unknown; partitions?: unknown; commit?: unknown } | undefined;
  if (
    reserved !== undefined &&
    (typeof reserved !== 'object' ||
      reserved === null ||
      typeof reserved.producerEpoch !== 'number' ||
      !Number.isSafeInteger(reserved.producerEpoch) ||
      typeof reserved.commit !== 'boolean' ||
      !Array.isArray(reserved.partitions) ||
      reserved.partitions.some((p) => typeof p !== 'string'))
  )
    throw corrupt(`transaction ${id}: reserved is not an epoch, a list of partitions and an outcome`);
  return {
    ...(reserved
      ? {
          reserved: {
            producerEpoch: reserved.producerEpoch as number,
            partitions: reserved.partitions as string[],
            commit: reserved.commit as boolean,
            ...((reserved as { replayed?: unknown }).replayed === true ? { replayed: true } : {}),
          },
        }
      : {}),
    transactionalId: id,
    producerId: int('producerId'),
    producerEpoch: int('producerEpoch'),
    lastProducerEpoch: int('lastProducerEpoch'),
    timeoutMs: int('timeoutMs'),
    state,
    partitions: strings('partitions'),
    groups: strings('groups'),
    startTimeMs: int('startTimeMs'),
    lastUpdateMs: int('lastUpdateMs'),
  };
}
