// Original file: protos/tide/v1/internal/txn_markers.proto

import type { WriteTxnMarkersResponse__Input as _tide_v1_internal_WriteTxnMarkersResponse__Input, WriteTxnMarkersResponse as _tide_v1_internal_WriteTxnMarkersResponse } from '../../../tide/v1/internal/WriteTxnMarkersResponse';
import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from '../../../tide/v1/Error';
import type { Long } from '@grpc/proto-loader';

export interface WriteTxnMarkersStreamResponse__Input {
  'call_id'?: (number | string | Long);
  'response'?: (_tide_v1_internal_WriteTxnMarkersResponse__Input | null);
  'error'?: (_tide_v1_Error__Input | null);
}

export interface WriteTxnMarkersStreamResponse {
  'call_id': (number);
  'response': (_tide_v1_internal_WriteTxnMarkersResponse | null);
  'error': (_tide_v1_Error | null);
}
