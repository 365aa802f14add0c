// Original file: protos/tide/v1/broker.proto

import type { Acks__Input as _tide_v1_Acks__Input, Acks as _tide_v1_Acks } from '../../tide/v1/Acks';
import type { Record__Input as _tide_v1_Record__Input, Record as _tide_v1_Record } from '../../tide/v1/Record';
import type { PortableProducer__Input as _tide_v1_PortableProducer__Input, PortableProducer as _tide_v1_PortableProducer } from '../../tide/v1/PortableProducer';
import type { Long } from '@grpc/proto-loader';

export interface ProduceRequest__Input {
  'correlation_id'?: (number | string | Long);
  'topic'?: (string);
  'partition'?: (number);
  'acks'?: (_tide_v1_Acks__Input);
  'timeout_ms'?: (number);
  'record_batches'?: (Buffer | Uint8Array | string);
  'records'?: (_tide_v1_Record__Input)[];
  'producer'?: (_tide_v1_PortableProducer__Input | null);
  'transactional_id'?: (string);
}

export interface ProduceRequest {
  'correlation_id': (number);
  'topic': (string);
  'partition': (number);
  'acks': (_tide_v1_Acks);
  'timeout_ms': (number);
  'record_batches': (Buffer);
  'records': (_tide_v1_Record)[];
  'producer': (_tide_v1_PortableProducer | null);
  'transactional_id': (string);
}
