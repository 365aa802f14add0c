// Original file: protos/tide/v1/coordinator.proto

import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';

export interface RevocationAck__Input {
  'partitions'?: (_tide_v1_TopicPartitions__Input)[];
}

export interface RevocationAck {
  'partitions': (_tide_v1_TopicPartitions)[];
}
