// Original file: protos/tide/v1/coordinator.proto

import type { CoordinatorInfo__Input as _tide_v1_CoordinatorInfo__Input, CoordinatorInfo as _tide_v1_CoordinatorInfo } from '../../tide/v1/CoordinatorInfo';

export interface FindCoordinatorResponse__Input {
  'coordinator'?: (_tide_v1_CoordinatorInfo__Input | null);
  'shard'?: (number);
  'shard_count'?: (number);
}

export interface FindCoordinatorResponse {
  'coordinator': (_tide_v1_CoordinatorInfo | null);
  'shard': (number);
  'shard_count': (number);
}
