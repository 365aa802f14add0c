// Original file: protos/tide/v1/common.proto

export const RecordFormat = {
  RECORD_FORMAT_RECORDS: 'RECORD_FORMAT_RECORDS',
  RECORD_FORMAT_BATCHES: 'RECORD_FORMAT_BATCHES',
} as const;

export type RecordFormat__Input =
  | 'RECORD_FORMAT_RECORDS'
  | 0
  | 'RECORD_FORMAT_BATCHES'
  | 1

export type RecordFormat = typeof RecordFormat[keyof typeof RecordFormat]
