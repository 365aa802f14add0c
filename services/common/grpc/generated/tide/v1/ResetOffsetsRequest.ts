// Original file: protos/tide/v1/coordinator.proto

import type { ResetTo__Input as _tide_v1_ResetTo__Input, ResetTo as _tide_v1_ResetTo } from '../../tide/v1/ResetTo';
import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';
import type { Long } from '@grpc/proto-loader';

export interface ResetOffsetsRequest__Input {
  'group_id'?: (string);
  'topics'?: (string)[];
  'to'?: (_tide_v1_ResetTo__Input);
  'timestamp_ms'?: (number | string | Long);
  'offset'?: (number | string | Long);
  'dry_run'?: (boolean);
  'partitions'?: (_tide_v1_TopicPartitions__Input)[];
  'shift_by'?: (number | string | Long);
}

export interface ResetOffsetsRequest {
  'group_id': (string);
  'topics': (string)[];
  'to': (_tide_v1_ResetTo);
  'timestamp_ms': (number);
  'offset': (number);
  'dry_run': (boolean);
  'partitions': (_tide_v1_TopicPartitions)[];
  'shift_by': (number);
}
