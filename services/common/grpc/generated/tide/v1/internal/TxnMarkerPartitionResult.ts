// Original file: protos/tide/v1/internal/txn_markers.proto

import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from '../../../tide/v1/Error';
import type { Long } from '@grpc/proto-loader';

export interface TxnMarkerPartitionResult__Input {
  'producer_id'?: (number | string | Long);
  'topic'?: (string);
  'partition'?: (number);
  'error'?: (_tide_v1_Error__Input | null);
}

export interface TxnMarkerPartitionResult {
  'producer_id': (number);
  'topic': (string);
  'partition': (number);
  'error': (_tide_v1_Error | null);
}
