// Original file: protos/tide/v1/transactions.proto

import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';
import type { Long } from '@grpc/proto-loader';

export interface AddPartitionsToTxnRequest__Input {
  'transactional_id'?: (string);
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
  'partitions'?: (_tide_v1_TopicPartitions__Input)[];
}

export interface AddPartitionsToTxnRequest {
  'transactional_id': (string);
  'producer_id': (number);
  'producer_epoch': (number);
  'partitions': (_tide_v1_TopicPartitions)[];
}
