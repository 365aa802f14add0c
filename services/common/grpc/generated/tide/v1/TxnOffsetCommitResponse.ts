// Original file: protos/tide/v1/transactions.proto


export interface TxnOffsetCommitResponse__Input {
}

export interface TxnOffsetCommitResponse {
}
