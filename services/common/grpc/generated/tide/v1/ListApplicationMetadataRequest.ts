// Original file: protos/tide/v1/admin.proto


export interface ListApplicationMetadataRequest__Input {
  'application'?: (string);
  'key_prefix'?: (string);
  'include_values'?: (boolean);
}

export interface ListApplicationMetadataRequest {
  'application': (string);
  'key_prefix': (string);
  'include_values': (boolean);
}
