// Original file: protos/tide/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface OngoingReassignment__Input {
  'topic'?: (string);
  'partition'?: (number);
  'replicas'?: (number)[];
  'adding'?: (number)[];
  'removing'?: (number)[];
  'target'?: (number)[];
  'caught_up'?: (number)[];
  'started_at_ms'?: (number | string | Long);
  'origin'?: (string);
}

export interface OngoingReassignment {
  'topic': (string);
  'partition': (number);
  'replicas': (number)[];
  'adding': (number)[];
  'removing': (number)[];
  'target': (number)[];
  'caught_up': (number)[];
  'started_at_ms': (number);
  'origin': (string);
}
