// Original file: protos/tide/v1/transactions.proto

import type { EndTxnRequest__Input as _tide_v1_EndTxnRequest__Input, EndTxnRequest as _tide_v1_EndTxnRequest } from '../../tide/v1/EndTxnRequest';
import type { Long } from '@grpc/proto-loader';

export interface EndTxnStreamRequest__Input {
  'call_id'?: (number | string | Long);
  'request'?: (_tide_v1_EndTxnRequest__Input | null);
}

export interface EndTxnStreamRequest {
  'call_id': (number);
  'request': (_tide_v1_EndTxnRequest | null);
}
