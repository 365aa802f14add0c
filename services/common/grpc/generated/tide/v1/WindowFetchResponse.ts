// Original file: protos/tide/v1/streams.proto

import type { WindowEntry__Input as _tide_v1_WindowEntry__Input, WindowEntry as _tide_v1_WindowEntry } from '../../tide/v1/WindowEntry';

export interface WindowFetchResponse__Input {
  'windows'?: (_tide_v1_WindowEntry__Input)[];
  'served_by'?: (string);
}

export interface WindowFetchResponse {
  'windows': (_tide_v1_WindowEntry)[];
  'served_by': (string);
}
