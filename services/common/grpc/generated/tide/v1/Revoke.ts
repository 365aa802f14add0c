// Original file: protos/tide/v1/coordinator.proto

import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';

export interface Revoke__Input {
  'partitions'?: (_tide_v1_TopicPartitions__Input)[];
  'timeout_ms'?: (number);
}

export interface Revoke {
  'partitions': (_tide_v1_TopicPartitions)[];
  'timeout_ms': (number);
}
