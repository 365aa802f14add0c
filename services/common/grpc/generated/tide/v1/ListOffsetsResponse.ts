// Original file: protos/tide/v1/broker.proto

import type { Long } from '@grpc/proto-loader';

export interface ListOffsetsResponse__Input {
  'topic'?: (string);
  'partition'?: (number);
  'offset'?: (number | string | Long);
  'timestamp_ms'?: (number | string | Long);
  'log_start_offset'?: (number | string | Long);
  'high_watermark'?: (number | string | Long);
  'last_stable_offset'?: (number | string | Long);
}

export interface ListOffsetsResponse {
  'topic': (string);
  'partition': (number);
  'offset': (number);
  'timestamp_ms': (number);
  'log_start_offset': (number);
  'high_watermark': (number);
  'last_stable_offset': (number);
}
