// Original file: protos/tide/v1/admin.proto


export interface DecommissionBrokerRequest__Input {
  'broker_id'?: (number);
}

export interface DecommissionBrokerRequest {
  'broker_id': (number);
}
