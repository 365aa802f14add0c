// Original file: protos/tide/v1/transactions.proto

import type { Long } from '@grpc/proto-loader';

export interface EndTxnResponse__Input {
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
}

export interface EndTxnResponse {
  'producer_id': (number);
  'producer_epoch': (number);
}
