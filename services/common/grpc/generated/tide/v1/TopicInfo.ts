// Original file: protos/tide/v1/common.proto

import type { PartitionInfo__Input as _tide_v1_PartitionInfo__Input, PartitionInfo as _tide_v1_PartitionInfo } from '../../tide/v1/PartitionInfo';

export interface TopicInfo__Input {
  'name'?: (string);
  'topic_id'?: (string);
  'internal'?: (boolean);
  'partitions'?: (_tide_v1_PartitionInfo__Input)[];
  'max_message_bytes'?: (number);
}

export interface TopicInfo {
  'name': (string);
  'topic_id': (string);
  'internal': (boolean);
  'partitions': (_tide_v1_PartitionInfo)[];
  'max_message_bytes': (number);
}
