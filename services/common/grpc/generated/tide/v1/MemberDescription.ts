// Original file: protos/tide/v1/coordinator.proto

import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';

export interface MemberDescription__Input {
  'member_id'?: (string);
  'instance_id'?: (string);
  'client_id'?: (string);
  'client_host'?: (string);
  'member_epoch'?: (number);
  'topics'?: (string)[];
  'owned'?: (_tide_v1_TopicPartitions__Input)[];
  'revoking'?: (_tide_v1_TopicPartitions__Input)[];
  'target'?: (_tide_v1_TopicPartitions__Input)[];
  'connected'?: (boolean);
  'user_data'?: (Buffer | Uint8Array | string);
}

export interface MemberDescription {
  'member_id': (string);
  'instance_id': (string);
  'client_id': (string);
  'client_host': (string);
  'member_epoch': (number);
  'topics': (string)[];
  'owned': (_tide_v1_TopicPartitions)[];
  'revoking': (_tide_v1_TopicPartitions)[];
  'target': (_tide_v1_TopicPartitions)[];
  'connected': (boolean);
  'user_data': (Buffer);
}
