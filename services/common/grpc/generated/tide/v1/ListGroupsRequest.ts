// Original file: protos/tide/v1/coordinator.proto


export interface ListGroupsRequest__Input {
}

export interface ListGroupsRequest {
}
