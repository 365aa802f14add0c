// Original file: protos/tide/v1/transactions.proto

import type { TxnOffset__Input as _tide_v1_TxnOffset__Input, TxnOffset as _tide_v1_TxnOffset } from '../../tide/v1/TxnOffset';
import type { Long } from '@grpc/proto-loader';

export interface TxnOffsetCommitRequest__Input {
  'transactional_id'?: (string);
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
  'group_id'?: (string);
  'member_id'?: (string);
  'member_epoch'?: (number);
  'offsets'?: (_tide_v1_TxnOffset__Input)[];
}

export interface TxnOffsetCommitRequest {
  'transactional_id': (string);
  'producer_id': (number);
  'producer_epoch': (number);
  'group_id': (string);
  'member_id': (string);
  'member_epoch': (number);
  'offsets': (_tide_v1_TxnOffset)[];
}
