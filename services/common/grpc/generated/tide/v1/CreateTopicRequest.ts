// Original file: protos/tide/v1/admin.proto


export interface CreateTopicRequest__Input {
  'name'?: (string);
  'partitions'?: (number);
  'replication_factor'?: (number);
  'configs'?: ({[key: string]: string});
  'validate_only'?: (boolean);
}

export interface CreateTopicRequest {
  'name': (string);
  'partitions': (number);
  'replication_factor': (number);
  'configs': ({[key: string]: string});
  'validate_only': (boolean);
}
