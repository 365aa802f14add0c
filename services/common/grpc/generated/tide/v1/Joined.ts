// Original file: protos/tide/v1/coordinator.proto


export interface Joined__Input {
  'member_id'?: (string);
  'member_epoch'?: (number);
  'heartbeat_interval_ms'?: (number);
  'generation'?: (number);
}

export interface Joined {
  'member_id': (string);
  'member_epoch': (number);
  'heartbeat_interval_ms': (number);
  'generation': (number);
}
