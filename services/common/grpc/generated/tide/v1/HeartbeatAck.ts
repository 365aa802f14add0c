// Original file: protos/tide/v1/coordinator.proto


export interface HeartbeatAck__Input {
  'member_epoch'?: (number);
}

export interface HeartbeatAck {
  'member_epoch': (number);
}
