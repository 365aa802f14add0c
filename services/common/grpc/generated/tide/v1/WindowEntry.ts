// Original file: protos/tide/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface WindowEntry__Input {
  'start_ms'?: (number | string | Long);
  'end_ms'?: (number | string | Long);
  'value'?: (Buffer | Uint8Array | string);
  'timestamp_ms'?: (number | string | Long);
}

export interface WindowEntry {
  'start_ms': (number);
  'end_ms': (number);
  'value': (Buffer);
  'timestamp_ms': (number);
}
