// Original file: protos/tide/v1/transactions.proto

import type { Long } from '@grpc/proto-loader';

export interface TxnOffset__Input {
  'topic'?: (string);
  'partition'?: (number);
  'offset'?: (number | string | Long);
  'metadata'?: (string);
}

export interface TxnOffset {
  'topic': (string);
  'partition': (number);
  'offset': (number);
  'metadata': (string);
}
