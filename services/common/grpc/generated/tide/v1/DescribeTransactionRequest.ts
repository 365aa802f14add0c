// Original file: protos/tide/v1/transactions.proto


export interface DescribeTransactionRequest__Input {
  'transactional_id'?: (string);
}

export interface DescribeTransactionRequest {
  'transactional_id': (string);
}
