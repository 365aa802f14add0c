// Original file: protos/tide/v1/coordinator.proto

import type { AssignorMember__Input as _tide_v1_AssignorMember__Input, AssignorMember as _tide_v1_AssignorMember } from '../../tide/v1/AssignorMember';
import type { TopicPartitionCount__Input as _tide_v1_TopicPartitionCount__Input, TopicPartitionCount as _tide_v1_TopicPartitionCount } from '../../tide/v1/TopicPartitionCount';

export interface ComputeAssignment__Input {
  'generation'?: (number);
  'members'?: (_tide_v1_AssignorMember__Input)[];
  'partition_counts'?: (_tide_v1_TopicPartitionCount__Input)[];
}

export interface ComputeAssignment {
  'generation': (number);
  'members': (_tide_v1_AssignorMember)[];
  'partition_counts': (_tide_v1_TopicPartitionCount)[];
}
