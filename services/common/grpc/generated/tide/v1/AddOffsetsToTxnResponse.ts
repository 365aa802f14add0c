// Original file: protos/tide/v1/transactions.proto


export interface AddOffsetsToTxnResponse__Input {
}

export interface AddOffsetsToTxnResponse {
}
