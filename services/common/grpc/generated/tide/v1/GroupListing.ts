// Original file: protos/tide/v1/coordinator.proto


export interface GroupListing__Input {
  'group_id'?: (string);
  'state'?: (string);
  'members'?: (number);
  'protocol'?: (string);
  'coordinator_id'?: (string);
}

export interface GroupListing {
  'group_id': (string);
  'state': (string);
  'members': (number);
  'protocol': (string);
  'coordinator_id': (string);
}
