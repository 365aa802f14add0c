// Original file: protos/tide/v1/broker.proto

export const OffsetSpec = {
  OFFSET_SPEC_LATEST: 'OFFSET_SPEC_LATEST',
  OFFSET_SPEC_EARLIEST: 'OFFSET_SPEC_EARLIEST',
  OFFSET_SPEC_TIMESTAMP: 'OFFSET_SPEC_TIMESTAMP',
} as const;

export type OffsetSpec__Input =
  | 'OFFSET_SPEC_LATEST'
  | 0
  | 'OFFSET_SPEC_EARLIEST'
  | 1
  | 'OFFSET_SPEC_TIMESTAMP'
  | 2

export type OffsetSpec = typeof OffsetSpec[keyof typeof OffsetSpec]
