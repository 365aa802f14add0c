// Original file: protos/tide/v1/coordinator.proto


export interface TopicPartitions__Input {
  'topic'?: (string);
  'partitions'?: (number)[];
}

export interface TopicPartitions {
  'topic': (string);
  'partitions': (number)[];
}
