// Original file: protos/tide/v1/coordinator.proto

import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';

export interface JoinGroup__Input {
  'group_id'?: (string);
  'topics'?: (string)[];
  'client_id'?: (string);
  'instance_id'?: (string);
  'session_timeout_ms'?: (number);
  'rebalance_timeout_ms'?: (number);
  'assignor'?: (string);
  'member_id'?: (string);
  'member_epoch'?: (number);
  'owned'?: (_tide_v1_TopicPartitions__Input)[];
  'user_data'?: (Buffer | Uint8Array | string);
}

export interface JoinGroup {
  'group_id': (string);
  'topics': (string)[];
  'client_id': (string);
  'instance_id': (string);
  'session_timeout_ms': (number);
  'rebalance_timeout_ms': (number);
  'assignor': (string);
  'member_id': (string);
  'member_epoch': (number);
  'owned': (_tide_v1_TopicPartitions)[];
  'user_data': (Buffer);
}
