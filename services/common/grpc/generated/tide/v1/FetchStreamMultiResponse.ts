// Original file: protos/tide/v1/broker.proto

import type { FetchResponse__Input as _tide_v1_FetchResponse__Input, FetchResponse as _tide_v1_FetchResponse } from '../../tide/v1/FetchResponse';

export interface FetchStreamMultiResponse__Input {
  'partitions'?: (_tide_v1_FetchResponse__Input)[];
  'throttle_time_ms'?: (number);
}

export interface FetchStreamMultiResponse {
  'partitions': (_tide_v1_FetchResponse)[];
  'throttle_time_ms': (number);
}
