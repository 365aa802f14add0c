// Original file: protos/tide/v1/coordinator.proto


export interface LeaveGroup__Input {
  'temporary'?: (boolean);
}

export interface LeaveGroup {
  'temporary': (boolean);
}
