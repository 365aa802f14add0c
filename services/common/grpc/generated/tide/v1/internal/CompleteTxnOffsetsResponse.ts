// Original file: protos/tide/v1/internal/txn_offsets.proto


export interface CompleteTxnOffsetsResponse__Input {
}

export interface CompleteTxnOffsetsResponse {
}
