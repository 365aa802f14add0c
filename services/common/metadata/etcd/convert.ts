/**
 * Pure conversions between the MetadataStore types and etcd's protobuf messages (as etcd3 loads
 * them: snake_case fields, int64 as decimal strings, enums as numbers or names).
 */
import { CompareResult, CompareTarget } from 'etcd3';
import type { ICompare, IEvent, IKeyValue, IPutRequest, IRequestOp, IResponseOp } from 'etcd3';
import { TideError } from '../../errors';
import type { Compare, KeyValue, TxnOp, WatchEvent } from '../store';

export function toBuffer(value: Buffer | string): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

/** An etcd int64 (decimal string) as a number; revisions and versions stay far below 2^53. */
export function toNumber(value: string | number | undefined): number {
  const n = Number(value ?? 0);
  if (!Number.isSafeInteger(n)) {
    throw new TideError('METADATA_UNAVAILABLE', `etcd returned ${value}, beyond 2^53`, { retriable: false });
  }
  return n;
}

/** etcd's lease id "0" means no lease. */
export function leaseOf(id: string | undefined): string | undefined {
  return id === undefined || id === '' || id === '0' ? undefined : id;
}

export function toKeyValue(kv: IKeyValue): KeyValue {
  const result: KeyValue = {
    key: kv.key.toString('utf8'),
    value: Buffer.from(kv.value ?? Buffer.alloc(0)),
    createRevision: toNumber(kv.create_revision),
    modRevision: toNumber(kv.mod_revision),
    version: toNumber(kv.version),
  };
  const lease = leaseOf(kv.lease);
  if (lease !== undefined) result.lease = lease;
  return result;
}

export function toWatchEvent(event: IEvent): WatchEvent {
  const revision = toNumber(event.kv.mod_revision);
  const key = event.kv.key.toString('utf8');
  // etcd3 loads enums as names ('PUT' / 'DELETE'); PUT is the proto default (0).
  const type = String(event.type ?? 'PUT').toUpperCase();
  if (type === 'DELETE' || type === '1') return { type: 'delete', key, revision };
  return { type: 'put', key, value: Buffer.from(event.kv.value ?? Buffer.alloc(0)), revision };
}

/** The [key, range_end) of every key starting with `prefix` (etcd's "prefix" range). */
export function prefixRange(prefix: string): { key: Buffer; range_end: Buffer } {
  const start = Buffer.from(prefix, 'utf8');
  if (start.length === 0) return { key: Buffer.from([0]), range_end: Buffer.from([0]) };
  const end = Buffer.from(start);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return { key: start, range_end: end.subarray(0, i + 1) };
    }
  }
  // All bytes are 0xff: every key from `prefix` on.
  return { key: start, range_end: Buffer.from([0]) };
}

const RESULTS: Record<Compare['op'], CompareResult> = {
  '=': CompareResult.Equal,
  '!=': CompareResult.NotEqual,
  '<': CompareResult.Less,
  '>': CompareResult.Greater,
};

export function toCompare(compare: Compare): ICompare {
  const key = Buffer.from(compare.key, 'utf8');
  const result = RESULTS[compare.op];
  switch (compare.target) {
    case 'value':
      return { key, result, target: CompareTarget.Value, value: toBuffer(compare.value) };
    case 'createRevision':
      return { key, result, target: CompareTarget.Create, create_revision: compare.value };
    case 'modRevision':
      return { key, result, target: CompareTarget.Mod, mod_revision: compare.value };
    case 'version':
      return { key, result, target: CompareTarget.Version, version: compare.value };
  }
}

export function toPutRequest(key: string, value: Buffer | string, lease?: string): IPutRequest {
  return {
    key: Buffer.from(key, 'utf8'),
    value: toBuffer(value),
    ...(lease === undefined ? {} : { lease }),
  };
}

export function toRequestOp(op: TxnOp): IRequestOp {
  switch (op.type) {
    case 'put':
      return { request_put: toPutRequest(op.key, op.value, op.lease) };
    case 'delete':
      return { request_delete_range: { key: Buffer.from(op.key, 'utf8') } };
    case 'deletePrefix':
      return { request_delete_range: prefixRange(op.prefix) };
    case 'get':
      return { request_range: { key: Buffer.from(op.key, 'utf8') } };
  }
}

/** The results of the branch's 'get' ops, in order (undefined = absent). */
export function getsOf(ops: TxnOp[], responses: IResponseOp[]): (KeyValue | undefined)[] {
  const gets: (KeyValue | undefined)[] = [];
  ops.forEach((op, i) => {
    if (op.type !== 'get') return;
    const kv = responses[i]?.response_range?.kvs?.[0];
    gets.push(kv ? toKeyValue(kv) : undefined);
  });
  return gets;
}

/** True when no op of any branch writes: the transaction may then safely run twice. */
export function isReadOnly(...branches: TxnOp[][]): boolean {
  return branches.every((ops) => ops.every((op) => op.type === 'get'));
}
