// Original file: protos/tide/v1/coordinator.proto

import type { Long } from '@grpc/proto-loader';

export interface ShardOwner__Input {
  'shard'?: (number);
  'coordinator_id'?: (string);
  'epoch'?: (number | string | Long);
}

export interface ShardOwner {
  'shard': (number);
  'coordinator_id': (string);
  'epoch': (number);
}
