// Original file: protos/tide/v1/coordinator.proto

import type { MemberDescription__Input as _tide_v1_MemberDescription__Input, MemberDescription as _tide_v1_MemberDescription } from '../../tide/v1/MemberDescription';
import type { PartitionLag__Input as _tide_v1_PartitionLag__Input, PartitionLag as _tide_v1_PartitionLag } from '../../tide/v1/PartitionLag';

export interface DescribeGroupResponse__Input {
  'group_id'?: (string);
  'state'?: (string);
  'generation'?: (number);
  'assignor'?: (string);
  'protocol'?: (string);
  'members'?: (_tide_v1_MemberDescription__Input)[];
  'partitions'?: (_tide_v1_PartitionLag__Input)[];
  'coordinator_id'?: (string);
}

export interface DescribeGroupResponse {
  'group_id': (string);
  'state': (string);
  'generation': (number);
  'assignor': (string);
  'protocol': (string);
  'members': (_tide_v1_MemberDescription)[];
  'partitions': (_tide_v1_PartitionLag)[];
  'coordinator_id': (string);
}
