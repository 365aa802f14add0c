// Original file: protos/tide/v1/coordinator.proto


export interface FindCoordinatorRequest__Input {
  'group_id'?: (string);
}

export interface FindCoordinatorRequest {
  'group_id': (string);
}
