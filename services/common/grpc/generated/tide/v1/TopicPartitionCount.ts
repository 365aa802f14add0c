// Original file: protos/tide/v1/coordinator.proto


export interface TopicPartitionCount__Input {
  'topic'?: (string);
  'partitions'?: (number);
}

export interface TopicPartitionCount {
  'topic': (string);
  'partitions': (number);
}
