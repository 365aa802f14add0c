// Original file: protos/tide/v1/transactions.proto

import type { Long } from '@grpc/proto-loader';

export interface InitTransactionsResponse__Input {
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
}

export interface InitTransactionsResponse {
  'producer_id': (number);
  'producer_epoch': (number);
}
