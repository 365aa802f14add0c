// Original file: protos/tide/v1/internal/txn_joins.proto

import type { AddPartitionsToTxnRequest__Input as _tide_v1_AddPartitionsToTxnRequest__Input, AddPartitionsToTxnRequest as _tide_v1_AddPartitionsToTxnRequest } from '../../../tide/v1/AddPartitionsToTxnRequest';
import type { Long } from '@grpc/proto-loader';

export interface TxnJoinStreamRequest__Input {
  'call_id'?: (number | string | Long);
  'request'?: (_tide_v1_AddPartitionsToTxnRequest__Input | null);
}

export interface TxnJoinStreamRequest {
  'call_id': (number);
  'request': (_tide_v1_AddPartitionsToTxnRequest | null);
}
