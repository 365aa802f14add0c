// Original file: protos/tide/v1/coordinator.proto


export interface DeleteGroupRequest__Input {
  'group_id'?: (string);
}

export interface DeleteGroupRequest {
  'group_id': (string);
}
