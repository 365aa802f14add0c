// Original file: protos/tide/v1/coordinator.proto

import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';

export interface MemberTarget__Input {
  'member_id'?: (string);
  'partitions'?: (_tide_v1_TopicPartitions__Input)[];
  'user_data'?: (Buffer | Uint8Array | string);
}

export interface MemberTarget {
  'member_id': (string);
  'partitions': (_tide_v1_TopicPartitions)[];
  'user_data': (Buffer);
}
