// Original file: protos/tide/v1/coordinator.proto

import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from '../../tide/v1/TopicPartitions';

export interface Assignment__Input {
  'generation'?: (number);
  'member_epoch'?: (number);
  'partitions'?: (_tide_v1_TopicPartitions__Input)[];
  'refetch_offsets'?: (boolean);
  'user_data'?: (Buffer | Uint8Array | string);
}

export interface Assignment {
  'generation': (number);
  'member_epoch': (number);
  'partitions': (_tide_v1_TopicPartitions)[];
  'refetch_offsets': (boolean);
  'user_data': (Buffer);
}
