// Original file: protos/tide/v1/coordinator.proto

import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';

export interface AssignorMember__Input {
  'member_id'?: (string);
  'instance_id'?: (string);
  'topics'?: (string)[];
  'user_data'?: (Buffer | Uint8Array | string);
  'owned'?: (_tide_v1_TopicPartitions__Input)[];
  'previous_target'?: (_tide_v1_TopicPartitions__Input)[];
}

export interface AssignorMember {
  'member_id': (string);
  'instance_id': (string);
  'topics': (string)[];
  'user_data': (Buffer);
  'owned': (_tide_v1_TopicPartitions)[];
  'previous_target': (_tide_v1_TopicPartitions)[];
}
