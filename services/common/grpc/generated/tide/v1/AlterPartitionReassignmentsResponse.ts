// Original file: protos/tide/v1/admin.proto


export interface AlterPartitionReassignmentsResponse__Input {
  'accepted'?: (number);
  'unchanged'?: (number);
}

export interface AlterPartitionReassignmentsResponse {
  'accepted': (number);
  'unchanged': (number);
}
