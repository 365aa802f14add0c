// Original file: protos/tide/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface DeleteRecordsRequest__Input {
  'topic'?: (string);
  'partition'?: (number);
  'offset'?: (number | string | Long);
  'timeout_ms'?: (number);
}

export interface DeleteRecordsRequest {
  'topic': (string);
  'partition': (number);
  'offset': (number);
  'timeout_ms': (number);
}
