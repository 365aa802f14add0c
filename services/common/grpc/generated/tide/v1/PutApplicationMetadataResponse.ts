// Original file: protos/tide/v1/admin.proto

import type { ApplicationMetadata__Input as _tide_v1_ApplicationMetadata__Input, ApplicationMetadata as _tide_v1_ApplicationMetadata } from '../../tide/v1/ApplicationMetadata';
import type { Long } from '@grpc/proto-loader';

export interface PutApplicationMetadataResponse__Input {
  'applied'?: (boolean);
  'version'?: (number | string | Long);
  'current'?: (_tide_v1_ApplicationMetadata__Input | null);
}

export interface PutApplicationMetadataResponse {
  'applied': (boolean);
  'version': (number);
  'current': (_tide_v1_ApplicationMetadata | null);
}
