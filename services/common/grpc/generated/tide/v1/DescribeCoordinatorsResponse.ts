// Original file: protos/tide/v1/coordinator.proto

import type { CoordinatorInfo__Input as _tide_v1_CoordinatorInfo__Input, CoordinatorInfo as _tide_v1_CoordinatorInfo } from '../../tide/v1/CoordinatorInfo';
import type { ShardOwner__Input as _tide_v1_ShardOwner__Input, ShardOwner as _tide_v1_ShardOwner } from '../../tide/v1/ShardOwner';

export interface DescribeCoordinatorsResponse__Input {
  'coordinators'?: (_tide_v1_CoordinatorInfo__Input)[];
  'shards'?: (_tide_v1_ShardOwner__Input)[];
  'shard_count'?: (number);
}

export interface DescribeCoordinatorsResponse {
  'coordinators': (_tide_v1_CoordinatorInfo)[];
  'shards': (_tide_v1_ShardOwner)[];
  'shard_count': (number);
}
