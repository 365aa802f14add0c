// Original file: protos/tide/v1/admin.proto


export interface DeleteTopicResponse__Input {
}

export interface DeleteTopicResponse {
}
