// Original file: protos/tide/v1/coordinator.proto


export interface Heartbeat__Input {
  'member_epoch'?: (number);
}

export interface Heartbeat {
  'member_epoch': (number);
}
