// Original file: protos/tide/v1/transactions.proto

import type { EndTxnResponse__Input as _tide_v1_EndTxnResponse__Input, EndTxnResponse as _tide_v1_EndTxnResponse } from '../../tide/v1/EndTxnResponse';
import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from '../../tide/v1/Error';
import type { Long } from '@grpc/proto-loader';

export interface EndTxnStreamResponse__Input {
  'call_id'?: (number | string | Long);
  'response'?: (_tide_v1_EndTxnResponse__Input | null);
  'error'?: (_tide_v1_Error__Input | null);
}

export interface EndTxnStreamResponse {
  'call_id': (number);
  'response': (_tide_v1_EndTxnResponse | null);
  'error': (_tide_v1_Error | null);
}
