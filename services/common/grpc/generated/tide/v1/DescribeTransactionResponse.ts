// Original file: protos/tide/v1/transactions.proto

import type { TransactionDescription__Input as _tide_v1_TransactionDescription__Input, TransactionDescription as _tide_v1_TransactionDescription } from '../../tide/v1/TransactionDescription';

export interface DescribeTransactionResponse__Input {
  'transaction'?: (_tide_v1_TransactionDescription__Input | null);
}

export interface DescribeTransactionResponse {
  'transaction': (_tide_v1_TransactionDescription | null);
}
