// Original file: protos/tide/v1/controller.proto


export interface PartitionRef__Input {
  'topic'?: (string);
  'partition'?: (number);
}

export interface PartitionRef {
  'topic': (string);
  'partition': (number);
}
