// Original file: protos/tide/v1/broker.proto

import type { Long } from '@grpc/proto-loader';

export interface AbortedTransaction__Input {
  'producer_id'?: (number | string | Long);
  'first_offset'?: (number | string | Long);
}

export interface AbortedTransaction {
  'producer_id': (number);
  'first_offset': (number);
}
