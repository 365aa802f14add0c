// Original file: protos/tide/v1/broker.proto

import type { Long } from '@grpc/proto-loader';

export interface InitProducerIdResponse__Input {
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
}

export interface InitProducerIdResponse {
  'producer_id': (number);
  'producer_epoch': (number);
}
