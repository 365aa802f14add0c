// Original file: protos/tide/v1/transactions.proto

import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';
import type { Long } from '@grpc/proto-loader';

export interface TransactionDescription__Input {
  'transactional_id'?: (string);
  'state'?: (string);
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
  'timeout_ms'?: (number);
  'start_time_ms'?: (number | string | Long);
  'last_update_ms'?: (number | string | Long);
  'partitions'?: (_tide_v1_TopicPartitions__Input)[];
  'groups'?: (string)[];
  'coordinator_id'?: (string);
}

export interface TransactionDescription {
  'transactional_id': (string);
  'state': (string);
  'producer_id': (number);
  'producer_epoch': (number);
  'timeout_ms': (number);
  'start_time_ms': (number);
  'last_update_ms': (number);
  'partitions': (_tide_v1_TopicPartitions)[];
  'groups': (string)[];
  'coordinator_id': (string);
}
