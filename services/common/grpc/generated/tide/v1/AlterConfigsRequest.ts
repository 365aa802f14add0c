// Original file: protos/tide/v1/admin.proto


export interface AlterConfigsRequest__Input {
  'topic'?: (string);
  'set'?: ({[key: string]: string});
  'delete'?: (string)[];
  'validate_only'?: (boolean);
}

export interface AlterConfigsRequest {
  'topic': (string);
  'set': ({[key: string]: string});
  'delete': (string)[];
  'validate_only': (boolean);
}
