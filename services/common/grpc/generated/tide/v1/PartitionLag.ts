// Original file: protos/tide/v1/coordinator.proto

import type { Long } from '@grpc/proto-loader';

export interface PartitionLag__Input {
  'topic'?: (string);
  'partition'?: (number);
  'committed_offset'?: (number | string | Long);
  'end_offset'?: (number | string | Long);
  'lag'?: (number | string | Long);
  'member_id'?: (string);
}

export interface PartitionLag {
  'topic': (string);
  'partition': (number);
  'committed_offset': (number);
  'end_offset': (number);
  'lag': (number);
  'member_id': (string);
}
