// Original file: protos/tide/v1/transactions.proto

import type { Long } from '@grpc/proto-loader';

export interface EndTxnRequest__Input {
  'transactional_id'?: (string);
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
  'commit'?: (boolean);
  'reserve_partitions'?: (boolean);
}

export interface EndTxnRequest {
  'transactional_id': (string);
  'producer_id': (number);
  'producer_epoch': (number);
  'commit': (boolean);
  'reserve_partitions': (boolean);
}
