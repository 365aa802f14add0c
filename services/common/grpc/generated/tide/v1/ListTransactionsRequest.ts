// Original file: protos/tide/v1/transactions.proto


export interface ListTransactionsRequest__Input {
  'states'?: (string)[];
}

export interface ListTransactionsRequest {
  'states': (string)[];
}
