// Original file: protos/tide/v1/broker.proto

import type { OffsetSpec__Input as _tide_v1_OffsetSpec__Input, OffsetSpec as _tide_v1_OffsetSpec } from '../../tide/v1/OffsetSpec';
import type { IsolationLevel__Input as _tide_v1_IsolationLevel__Input, IsolationLevel as _tide_v1_IsolationLevel } from '../../tide/v1/IsolationLevel';
import type { Long } from '@grpc/proto-loader';

export interface ListOffsetsRequest__Input {
  'topic'?: (string);
  'partition'?: (number);
  'spec'?: (_tide_v1_OffsetSpec__Input);
  'timestamp_ms'?: (number | string | Long);
  'isolation'?: (_tide_v1_IsolationLevel__Input);
}

export interface ListOffsetsRequest {
  'topic': (string);
  'partition': (number);
  'spec': (_tide_v1_OffsetSpec);
  'timestamp_ms': (number);
  'isolation': (_tide_v1_IsolationLevel);
}
