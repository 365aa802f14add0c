// Original file: protos/tide/v1/controller.proto


export interface ControlledShutdownRequest__Input {
  'broker_id'?: (number);
}

export interface ControlledShutdownRequest {
  'broker_id': (number);
}
