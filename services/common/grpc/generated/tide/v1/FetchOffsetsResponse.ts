// Original file: protos/tide/v1/coordinator.proto

import type { CommittedOffset__Input as _tide_v1_CommittedOffset__Input, CommittedOffset as _tide_v1_CommittedOffset } from '../../tide/v1/CommittedOffset';

export interface FetchOffsetsResponse__Input {
  'offsets'?: (_tide_v1_CommittedOffset__Input)[];
}

export interface FetchOffsetsResponse {
  'offsets': (_tide_v1_CommittedOffset)[];
}
