// Original file: protos/tide/v1/internal/txn_markers.proto

import type { TxnResult__Input as _tide_v1_internal_TxnResult__Input, TxnResult as _tide_v1_internal_TxnResult } from '../../../tide/v1/internal/TxnResult';
import type { TxnMarkerPartition__Input as _tide_v1_internal_TxnMarkerPartition__Input, TxnMarkerPartition as _tide_v1_internal_TxnMarkerPartition } from '../../../tide/v1/internal/TxnMarkerPartition';
import type { Long } from '@grpc/proto-loader';

export interface TxnMarker__Input {
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
  'coordinator_epoch'?: (number);
  'result'?: (_tide_v1_internal_TxnResult__Input);
  'partitions'?: (_tide_v1_internal_TxnMarkerPartition__Input)[];
}

export interface TxnMarker {
  'producer_id': (number);
  'producer_epoch': (number);
  'coordinator_epoch': (number);
  'result': (_tide_v1_internal_TxnResult);
  'partitions': (_tide_v1_internal_TxnMarkerPartition)[];
}
