// Original file: protos/tide/v1/broker.proto

import type { RecordFormat__Input as _tide_v1_RecordFormat__Input, RecordFormat as _tide_v1_RecordFormat } from '../../tide/v1/RecordFormat';
import type { IsolationLevel__Input as _tide_v1_IsolationLevel__Input, IsolationLevel as _tide_v1_IsolationLevel } from '../../tide/v1/IsolationLevel';
import type { Long } from '@grpc/proto-loader';

export interface FetchRequest__Input {
  'topic'?: (string);
  'partition'?: (number);
  'offset'?: (number | string | Long);
  'max_bytes'?: (number);
  'max_wait_ms'?: (number);
  'min_bytes'?: (number);
  'format'?: (_tide_v1_RecordFormat__Input);
  'isolation'?: (_tide_v1_IsolationLevel__Input);
}

export interface FetchRequest {
  'topic': (string);
  'partition': (number);
  'offset': (number);
  'max_bytes': (number);
  'max_wait_ms': (number);
  'min_bytes': (number);
  'format': (_tide_v1_RecordFormat);
  'isolation': (_tide_v1_IsolationLevel);
}
