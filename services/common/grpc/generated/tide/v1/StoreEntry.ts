// Original file: protos/tide/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface StoreEntry__Input {
  'key'?: (Buffer | Uint8Array | string);
  'value'?: (Buffer | Uint8Array | string);
  'timestamp_ms'?: (number | string | Long);
}

export interface StoreEntry {
  'key': (Buffer);
  'value': (Buffer);
  'timestamp_ms': (number);
}
