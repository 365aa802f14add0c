// Original file: protos/tide/v1/internal/txn_markers.proto

import type { TxnMarker__Input as _tide_v1_internal_TxnMarker__Input, TxnMarker as _tide_v1_internal_TxnMarker } from '../../../tide/v1/internal/TxnMarker';

export interface WriteTxnMarkersRequest__Input {
  'markers'?: (_tide_v1_internal_TxnMarker__Input)[];
  'timeout_ms'?: (number);
}

export interface WriteTxnMarkersRequest {
  'markers': (_tide_v1_internal_TxnMarker)[];
  'timeout_ms': (number);
}
