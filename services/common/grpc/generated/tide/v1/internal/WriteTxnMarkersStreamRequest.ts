// Original file: protos/tide/v1/internal/txn_markers.proto

import type { WriteTxnMarkersRequest__Input as _tide_v1_internal_WriteTxnMarkersRequest__Input, WriteTxnMarkersRequest as _tide_v1_internal_WriteTxnMarkersRequest } from '../../../tide/v1/internal/WriteTxnMarkersRequest';
import type { Long } from '@grpc/proto-loader';

export interface WriteTxnMarkersStreamRequest__Input {
  'call_id'?: (number | string | Long);
  'request'?: (_tide_v1_internal_WriteTxnMarkersRequest__Input | null);
}

export interface WriteTxnMarkersStreamRequest {
  'call_id': (number);
  'request': (_tide_v1_internal_WriteTxnMarkersRequest | null);
}
