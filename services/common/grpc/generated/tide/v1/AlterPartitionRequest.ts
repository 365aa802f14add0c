// Original file: protos/tide/v1/controller.proto


export interface AlterPartitionRequest__Input {
  'broker_id'?: (number);
  'topic'?: (string);
  'partition'?: (number);
  'leader_epoch'?: (number);
  'partition_epoch'?: (number);
  'new_isr'?: (number)[];
}

export interface AlterPartitionRequest {
  'broker_id': (number);
  'topic': (string);
  'partition': (number);
  'leader_epoch': (number);
  'partition_epoch': (number);
  'new_isr': (number)[];
}
