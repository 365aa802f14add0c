// Original file: protos/tide/v1/admin.proto

import type { ApplicationMetadata__Input as _tide_v1_ApplicationMetadata__Input, ApplicationMetadata as _tide_v1_ApplicationMetadata } from '../../tide/v1/ApplicationMetadata';

export interface ListApplicationMetadataResponse__Input {
  'entries'?: (_tide_v1_ApplicationMetadata__Input)[];
}

export interface ListApplicationMetadataResponse {
  'entries': (_tide_v1_ApplicationMetadata)[];
}
