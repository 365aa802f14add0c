// Original file: protos/tide/v1/transactions.proto

import type { TransactionListing__Input as _tide_v1_TransactionListing__Input, TransactionListing as _tide_v1_TransactionListing } from '../../tide/v1/TransactionListing';

export interface ListTransactionsResponse__Input {
  'transactions'?: (_tide_v1_TransactionListing__Input)[];
}

export interface ListTransactionsResponse {
  'transactions': (_tide_v1_TransactionListing)[];
}
