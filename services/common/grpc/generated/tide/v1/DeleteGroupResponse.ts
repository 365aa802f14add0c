// Original file: protos/tide/v1/coordinator.proto


export interface DeleteGroupResponse__Input {
  'offsets_deleted'?: (number);
}

export interface DeleteGroupResponse {
  'offsets_deleted': (number);
}
