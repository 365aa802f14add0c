// Original file: protos/tide/v1/transactions.proto

import type { Long } from '@grpc/proto-loader';

export interface TransactionListing__Input {
  'transactional_id'?: (string);
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
  'state'?: (string);
  'coordinator_id'?: (string);
}

export interface TransactionListing {
  'transactional_id': (string);
  'producer_id': (number);
  'producer_epoch': (number);
  'state': (string);
  'coordinator_id': (string);
}
