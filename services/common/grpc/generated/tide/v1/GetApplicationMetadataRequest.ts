// Original file: protos/tide/v1/admin.proto


export interface GetApplicationMetadataRequest__Input {
  'application'?: (string);
  'key'?: (string);
}

export interface GetApplicationMetadataRequest {
  'application': (string);
  'key': (string);
}
