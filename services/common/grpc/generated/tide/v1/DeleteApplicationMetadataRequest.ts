// Original file: protos/tide/v1/admin.proto


export interface DeleteApplicationMetadataRequest__Input {
  'application'?: (string);
  'key'?: (string);
}

export interface DeleteApplicationMetadataRequest {
  'application': (string);
  'key': (string);
}
