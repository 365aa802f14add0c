/**
 * Conversion between the portable protobuf `Record` and the record batch codec, used only on the
 * portable (non fast-path) produce and fetch paths.
 */
import type { Record as WireRecord } from '../../common/grpc/generated/tide/v1/Record';
import type { Record__Input as WireRecordInput } from '../../common/grpc/generated/tide/v1/Record';
import type { DecodedRecord, RecordInput } from '../../common/records/codec';

export function fromWireRecord(record: WireRecord): RecordInput {
  return {
    key: record.key ?? null,
    value: record.value ?? null,
    headers: record.headers.map((h) => ({ key: h.key, value: h.value })),
    timestampMs: record.timestamp_ms > 0 ? record.timestamp_ms : undefined,
  };
}

export function toWireRecord(record: DecodedRecord): WireRecordInput {
  const wire: WireRecordInput = {
    headers: record.headers.map((h) => ({ key: h.key, value: h.value ?? Buffer.alloc(0) })),
    timestamp_ms: record.timestampMs,
    offset: record.offset,
  };
  if (record.key !== null) wire.key = record.key;
  if (record.value !== null) wire.value = record.value;
  return wire;
}
