// Original file: protos/tide/v1/broker.proto


export interface InitProducerIdRequest__Input {
  'transactional_id'?: (string);
}

export interface InitProducerIdRequest {
  'transactional_id': (string);
}
