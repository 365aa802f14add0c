// Original file: protos/tide/v1/coordinator.proto

export const ResetTo = {
  RESET_TO_UNSPECIFIED: 'RESET_TO_UNSPECIFIED',
  RESET_TO_EARLIEST: 'RESET_TO_EARLIEST',
  RESET_TO_LATEST: 'RESET_TO_LATEST',
  RESET_TO_TIMESTAMP: 'RESET_TO_TIMESTAMP',
  RESET_TO_OFFSET: 'RESET_TO_OFFSET',
  RESET_TO_SHIFT: 'RESET_TO_SHIFT',
} as const;

export type ResetTo__Input =
  | 'RESET_TO_UNSPECIFIED'
  | 0
  | 'RESET_TO_EARLIEST'
  | 1
  | 'RESET_TO_LATEST'
  | 2
  | 'RESET_TO_TIMESTAMP'
  | 3
  | 'RESET_TO_OFFSET'
  | 4
  | 'RESET_TO_SHIFT'
  | 5

export type ResetTo = typeof ResetTo[keyof typeof ResetTo]
