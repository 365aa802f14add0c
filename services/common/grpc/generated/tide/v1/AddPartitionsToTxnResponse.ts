// Original file: protos/tide/v1/transactions.proto


export interface AddPartitionsToTxnResponse__Input {
}

export interface AddPartitionsToTxnResponse {
}
