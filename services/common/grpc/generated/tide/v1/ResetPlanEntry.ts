// Original file: protos/tide/v1/coordinator.proto

import type { Long } from '@grpc/proto-loader';

export interface ResetPlanEntry__Input {
  'topic'?: (string);
  'partition'?: (number);
  'current_offset'?: (number | string | Long);
  'new_offset'?: (number | string | Long);
}

export interface ResetPlanEntry {
  'topic': (string);
  'partition': (number);
  'current_offset': (number);
  'new_offset': (number);
}
