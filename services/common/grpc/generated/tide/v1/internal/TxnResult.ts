// Original file: protos/tide/v1/internal/txn_markers.proto

export const TxnResult = {
  TXN_RESULT_UNSPECIFIED: 'TXN_RESULT_UNSPECIFIED',
  TXN_RESULT_COMMIT: 'TXN_RESULT_COMMIT',
  TXN_RESULT_ABORT: 'TXN_RESULT_ABORT',
} as const;

export type TxnResult__Input =
  | 'TXN_RESULT_UNSPECIFIED'
  | 0
  | 'TXN_RESULT_COMMIT'
  | 1
  | 'TXN_RESULT_ABORT'
  | 2

export type TxnResult = typeof TxnResult[keyof typeof TxnResult]
