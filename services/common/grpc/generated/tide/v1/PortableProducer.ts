// Original file: protos/tide/v1/broker.proto

import type { Long } from '@grpc/proto-loader';

export interface PortableProducer__Input {
  'producer_id'?: (number | string | Long);
  'producer_epoch'?: (number);
  'base_sequence'?: (number);
  'transactional'?: (boolean);
}

export interface PortableProducer {
  'producer_id': (number);
  'producer_epoch': (number);
  'base_sequence': (number);
  'transactional': (boolean);
}
