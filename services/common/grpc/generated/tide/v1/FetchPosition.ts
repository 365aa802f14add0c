// Original file: protos/tide/v1/broker.proto

import type { Long } from '@grpc/proto-loader';

export interface FetchPosition__Input {
  'topic'?: (string);
  'partition'?: (number);
  'offset'?: (number | string | Long);
}

export interface FetchPosition {
  'topic': (string);
  'partition': (number);
  'offset': (number);
}
