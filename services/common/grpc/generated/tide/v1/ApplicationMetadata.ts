// Original file: protos/tide/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface ApplicationMetadata__Input {
  'application'?: (string);
  'key'?: (string);
  'value'?: (Buffer | Uint8Array | string);
  'version'?: (number | string | Long);
  'expires_at_ms'?: (number | string | Long);
  'value_bytes'?: (number);
}

export interface ApplicationMetadata {
  'application': (string);
  'key': (string);
  'value': (Buffer);
  'version': (number);
  'expires_at_ms': (number);
  'value_bytes': (number);
}
