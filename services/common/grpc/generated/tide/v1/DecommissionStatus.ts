// Original file: protos/tide/v1/admin.proto


export interface DecommissionStatus__Input {
  'broker_id'?: (number);
  'decommissioning'?: (boolean);
  'remaining_replicas'?: (number);
  'remaining_leaders'?: (number);
}

export interface DecommissionStatus {
  'broker_id': (number);
  'decommissioning': (boolean);
  'remaining_replicas': (number);
  'remaining_leaders': (number);
}
