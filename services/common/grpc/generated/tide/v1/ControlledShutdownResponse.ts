// Original file: protos/tide/v1/controller.proto


export interface ControlledShutdownResponse__Input {
  'remaining_partitions'?: (string)[];
}

export interface ControlledShutdownResponse {
  'remaining_partitions': (string)[];
}
