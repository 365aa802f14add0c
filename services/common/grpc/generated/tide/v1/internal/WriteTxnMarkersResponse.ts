// Original file: protos/tide/v1/internal/txn_markers.proto

import type { TxnMarkerPartitionResult__Input as _tide_v1_internal_TxnMarkerPartitionResult__Input, TxnMarkerPartitionResult as _tide_v1_internal_TxnMarkerPartitionResult } from '../../../tide/v1/internal/TxnMarkerPartitionResult';

export interface WriteTxnMarkersResponse__Input {
  'results'?: (_tide_v1_internal_TxnMarkerPartitionResult__Input)[];
}

export interface WriteTxnMarkersResponse {
  'results': (_tide_v1_internal_TxnMarkerPartitionResult)[];
}
