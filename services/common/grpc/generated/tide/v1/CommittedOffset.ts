// Original file: protos/tide/v1/coordinator.proto

import type { Long } from '@grpc/proto-loader';

export interface CommittedOffset__Input {
  'topic'?: (string);
  'partition'?: (number);
  'offset'?: (number | string | Long);
  'metadata'?: (string);
  'commit_timestamp_ms'?: (number | string | Long);
}

export interface CommittedOffset {
  'topic': (string);
  'partition': (number);
  'offset': (number);
  'metadata': (string);
  'commit_timestamp_ms': (number);
}
