// Original file: protos/tide/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface StoreGetResponse__Input {
  'found'?: (boolean);
  'value'?: (Buffer | Uint8Array | string);
  'timestamp_ms'?: (number | string | Long);
  'served_by'?: (string);
}

export interface StoreGetResponse {
  'found': (boolean);
  'value': (Buffer);
  'timestamp_ms': (number);
  'served_by': (string);
}
