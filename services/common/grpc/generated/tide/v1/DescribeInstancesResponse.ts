// Original file: protos/tide/v1/streams.proto

import type { StreamsInstance__Input as _tide_v1_StreamsInstance__Input, StreamsInstance as _tide_v1_StreamsInstance } from '../../tide/v1/StreamsInstance';

export interface DescribeInstancesResponse__Input {
  'instances'?: (_tide_v1_StreamsInstance__Input)[];
}

export interface DescribeInstancesResponse {
  'instances': (_tide_v1_StreamsInstance)[];
}
