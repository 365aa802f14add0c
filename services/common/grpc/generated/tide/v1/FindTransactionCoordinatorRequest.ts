// Original file: protos/tide/v1/transactions.proto


export interface FindTransactionCoordinatorRequest__Input {
  'transactional_id'?: (string);
}

export interface FindTransactionCoordinatorRequest {
  'transactional_id': (string);
}
