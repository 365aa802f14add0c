// Original file: protos/tide/v1/common.proto


export interface PartitionInfo__Input {
  'partition'?: (number);
  'leader'?: (number);
  'leader_epoch'?: (number);
  'replicas'?: (number)[];
  'isr'?: (number)[];
  'offline_replicas'?: (number)[];
  'partition_epoch'?: (number);
}

export interface PartitionInfo {
  'partition': (number);
  'leader': (number);
  'leader_epoch': (number);
  'replicas': (number)[];
  'isr': (number)[];
  'offline_replicas': (number)[];
  'partition_epoch': (number);
}
