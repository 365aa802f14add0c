// Original file: protos/tide/v1/common.proto


export interface BrokerInfo__Input {
  'id'?: (number);
  'host'?: (string);
  'port'?: (number);
  'rack'?: (string);
}

export interface BrokerInfo {
  'id': (number);
  'host': (string);
  'port': (number);
  'rack': (string);
}
