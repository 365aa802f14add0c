// Original file: protos/tide/v1/coordinator.proto

import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';

export interface FetchOffsetsRequest__Input {
  'group_id'?: (string);
  'partitions'?: (_tide_v1_TopicPartitions__Input)[];
  'require_stable'?: (boolean);
}

export interface FetchOffsetsRequest {
  'group_id': (string);
  'partitions': (_tide_v1_TopicPartitions)[];
  'require_stable': (boolean);
}
