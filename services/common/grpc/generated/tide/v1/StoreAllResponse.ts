// Original file: protos/tide/v1/streams.proto

import type { StoreEntry__Input as _tide_v1_StoreEntry__Input, StoreEntry as _tide_v1_StoreEntry } from '../../tide/v1/StoreEntry';

export interface StoreAllResponse__Input {
  'entries'?: (_tide_v1_StoreEntry__Input)[];
}

export interface StoreAllResponse {
  'entries': (_tide_v1_StoreEntry)[];
}
