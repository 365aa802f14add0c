// Original file: protos/tide/v1/transactions.proto


export interface InitTransactionsRequest__Input {
  'transactional_id'?: (string);
  'transaction_timeout_ms'?: (number);
}

export interface InitTransactionsRequest {
  'transactional_id': (string);
  'transaction_timeout_ms': (number);
}
