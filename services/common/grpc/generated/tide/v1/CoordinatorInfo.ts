// Original file: protos/tide/v1/coordinator.proto


export interface CoordinatorInfo__Input {
  'id'?: (string);
  'host'?: (string);
  'port'?: (number);
}

export interface CoordinatorInfo {
  'id': (string);
  'host': (string);
  'port': (number);
}
