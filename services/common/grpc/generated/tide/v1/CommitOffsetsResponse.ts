// Original file: protos/tide/v1/coordinator.proto


export interface CommitOffsetsResponse__Input {
}

export interface CommitOffsetsResponse {
}
