// Original file: protos/tide/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface PutApplicationMetadataRequest__Input {
  'application'?: (string);
  'key'?: (string);
  'value'?: (Buffer | Uint8Array | string);
  'conditional'?: (boolean);
  'expected_version'?: (number | string | Long);
  'ttl_ms'?: (number | string | Long);
}

export interface PutApplicationMetadataRequest {
  'application': (string);
  'key': (string);
  'value': (Buffer);
  'conditional': (boolean);
  'expected_version': (number);
  'ttl_ms': (number);
}
