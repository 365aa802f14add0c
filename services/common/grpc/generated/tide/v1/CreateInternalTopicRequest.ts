// Original file: protos/tide/v1/controller.proto


export interface CreateInternalTopicRequest__Input {
  'name'?: (string);
  'partitions'?: (number);
  'replication_factor'?: (number);
  'configs'?: ({[key: string]: string});
}

export interface CreateInternalTopicRequest {
  'name': (string);
  'partitions': (number);
  'replication_factor': (number);
  'configs': ({[key: string]: string});
}
