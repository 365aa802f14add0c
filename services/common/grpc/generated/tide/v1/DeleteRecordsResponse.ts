// Original file: protos/tide/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface DeleteRecordsResponse__Input {
  'topic'?: (string);
  'partition'?: (number);
  'low_watermark'?: (number | string | Long);
}

export interface DeleteRecordsResponse {
  'topic': (string);
  'partition': (number);
  'low_watermark': (number);
}
