// Original file: protos/tide/v1/admin.proto


export interface ListPartitionReassignmentsRequest__Input {
  'topics'?: (string)[];
}

export interface ListPartitionReassignmentsRequest {
  'topics': (string)[];
}
