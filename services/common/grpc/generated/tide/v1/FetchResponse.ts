// Original file: protos/tide/v1/broker.proto

import type { Record__Input as _tide_v1_Record__Input, Record as _tide_v1_Record } from '../../tide/v1/Record';
import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from '../../tide/v1/Error';
import type { AbortedTransaction__Input as _tide_v1_AbortedTransaction__Input, AbortedTransaction as _tide_v1_AbortedTransaction } from '../../tide/v1/AbortedTransaction';
import type { Long } from '@grpc/proto-loader';

export interface FetchResponse__Input {
  'topic'?: (string);
  'partition'?: (number);
  'high_watermark'?: (number | string | Long);
  'log_start_offset'?: (number | string | Long);
  'record_batches'?: (Buffer | Uint8Array | string);
  'records'?: (_tide_v1_Record__Input)[];
  'next_offset'?: (number | string | Long);
  'error'?: (_tide_v1_Error__Input | null);
  'last_stable_offset'?: (number | string | Long);
  'aborted_transactions'?: (_tide_v1_AbortedTransaction__Input)[];
  'throttle_time_ms'?: (number);
}

export interface FetchResponse {
  'topic': (string);
  'partition': (number);
  'high_watermark': (number);
  'log_start_offset': (number);
  'record_batches': (Buffer);
  'records': (_tide_v1_Record)[];
  'next_offset': (number);
  'error': (_tide_v1_Error | null);
  'last_stable_offset': (number);
  'aborted_transactions': (_tide_v1_AbortedTransaction)[];
  'throttle_time_ms': (number);
}
