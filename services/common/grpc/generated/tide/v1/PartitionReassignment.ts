// Original file: protos/tide/v1/admin.proto


export interface PartitionReassignment__Input {
  'topic'?: (string);
  'partition'?: (number);
  'replicas'?: (number)[];
}

export interface PartitionReassignment {
  'topic': (string);
  'partition': (number);
  'replicas': (number)[];
}
