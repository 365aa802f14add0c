// Original file: protos/tide/v1/coordinator.proto

import type { Long } from '@grpc/proto-loader';

export interface PartitionOffset__Input {
  'topic'?: (string);
  'partition'?: (number);
  'offset'?: (number | string | Long);
  'metadata'?: (string);
}

export interface PartitionOffset {
  'topic': (string);
  'partition': (number);
  'offset': (number);
  'metadata': (string);
}
