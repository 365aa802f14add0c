// Original file: protos/tide/v1/internal/txn_offsets.proto

import type { Long } from '@grpc/proto-loader';

export interface CompleteTxnOffsetsRequest__Input {
  'group_id'?: (string);
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
  'commit'?: (boolean);
}

export interface CompleteTxnOffsetsRequest {
  'group_id': (string);
  'producer_id': (number);
  'producer_epoch': (number);
  'commit': (boolean);
}
