// Original file: protos/tide/v1/common.proto

import type { RecordHeader__Input as _tide_v1_RecordHeader__Input, RecordHeader as _tide_v1_RecordHeader } from '../../tide/v1/RecordHeader';
import type { Long } from '@grpc/proto-loader';

export interface Record__Input {
  'key'?: (Buffer | Uint8Array | string);
  'value'?: (Buffer | Uint8Array | string);
  'headers'?: (_tide_v1_RecordHeader__Input)[];
  'timestamp_ms'?: (number | string | Long);
  'offset'?: (number | string | Long);
  '_key'?: "key";
  '_value'?: "value";
}

export interface Record {
  'key'?: (Buffer);
  'value'?: (Buffer);
  'headers': (_tide_v1_RecordHeader)[];
  'timestamp_ms': (number);
  'offset': (number);
  '_key'?: "key";
  '_value'?: "value";
}
