// Original file: protos/tide/v1/streams.proto


export interface StreamsInstance__Input {
  'endpoint'?: (string);
  'active_tasks'?: (string)[];
  'standby_tasks'?: (string)[];
}

export interface StreamsInstance {
  'endpoint': (string);
  'active_tasks': (string)[];
  'standby_tasks': (string)[];
}
