// Original file: protos/tide/v1/internal/txn_joins.proto

import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from '../../../tide/v1/Error';
import type { AddPartitionsToTxnResponse__Input as _tide_v1_AddPartitionsToTxnResponse__Input, AddPartitionsToTxnResponse as _tide_v1_AddPartitionsToTxnResponse } from '../../../tide/v1/AddPartitionsToTxnResponse';
import type { Long } from '@grpc/proto-loader';

export interface TxnJoinStreamResponse__Input {
  'call_id'?: (number | string | Long);
  'error'?: (_tide_v1_Error__Input | null);
  'response'?: (_tide_v1_AddPartitionsToTxnResponse__Input | null);
}

export interface TxnJoinStreamResponse {
  'call_id': (number);
  'error': (_tide_v1_Error | null);
  'response': (_tide_v1_AddPartitionsToTxnResponse | null);
}
