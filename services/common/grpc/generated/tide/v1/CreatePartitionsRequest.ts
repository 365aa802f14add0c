// Original file: protos/tide/v1/admin.proto


export interface CreatePartitionsRequest__Input {
  'topic'?: (string);
  'count'?: (number);
  'validate_only'?: (boolean);
}

export interface CreatePartitionsRequest {
  'topic': (string);
  'count': (number);
  'validate_only': (boolean);
}
