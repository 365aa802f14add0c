// Original file: protos/tide/v1/transactions.proto

import type { Long } from '@grpc/proto-loader';

export interface AddOffsetsToTxnRequest__Input {
  'transactional_id'?: (string);
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
  'group_id'?: (string);
}

export interface AddOffsetsToTxnRequest {
  'transactional_id': (string);
  'producer_id': (number);
  'producer_epoch': (number);
  'group_id': (string);
}
