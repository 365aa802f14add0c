// Original file: protos/tide/v1/broker.proto

import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from '../../tide/v1/Error';
import type { Long } from '@grpc/proto-loader';

export interface ProduceResponse__Input {
  'correlation_id'?: (number | string | Long);
  'topic'?: (string);
  'partition'?: (number);
  'base_offset'?: (number | string | Long);
  'last_offset'?: (number | string | Long);
  'log_append_time_ms'?: (number | string | Long);
  'log_start_offset'?: (number | string | Long);
  'error'?: (_tide_v1_Error__Input | null);
  'throttle_time_ms'?: (number);
}

export interface ProduceResponse {
  'correlation_id': (number);
  'topic': (string);
  'partition': (number);
  'base_offset': (number);
  'last_offset': (number);
  'log_append_time_ms': (number);
  'log_start_offset': (number);
  'error': (_tide_v1_Error | null);
  'throttle_time_ms': (number);
}
