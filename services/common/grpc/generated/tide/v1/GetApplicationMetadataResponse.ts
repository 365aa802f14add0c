// Original file: protos/tide/v1/admin.proto

import type { ApplicationMetadata__Input as _tide_v1_ApplicationMetadata__Input, ApplicationMetadata as _tide_v1_ApplicationMetadata } from '../../tide/v1/ApplicationMetadata';

export interface GetApplicationMetadataResponse__Input {
  'found'?: (boolean);
  'entry'?: (_tide_v1_ApplicationMetadata__Input | null);
}

export interface GetApplicationMetadataResponse {
  'found': (boolean);
  'entry': (_tide_v1_ApplicationMetadata | null);
}
