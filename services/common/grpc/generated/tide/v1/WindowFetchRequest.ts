// Original file: protos/tide/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface WindowFetchRequest__Input {
  'application_id'?: (string);
  'store'?: (string);
  'key'?: (Buffer | Uint8Array | string);
  'from_ms'?: (number | string | Long);
  'to_ms'?: (number | string | Long);
  'local_only'?: (boolean);
  'allow_stale'?: (boolean);
}

export interface WindowFetchRequest {
  'application_id': (string);
  'store': (string);
  'key': (Buffer);
  'from_ms': (number);
  'to_ms': (number);
  'local_only': (boolean);
  'allow_stale': (boolean);
}
