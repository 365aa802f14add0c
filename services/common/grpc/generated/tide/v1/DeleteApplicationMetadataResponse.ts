// Original file: protos/tide/v1/admin.proto


export interface DeleteApplicationMetadataResponse__Input {
  'deleted'?: (number);
}

export interface DeleteApplicationMetadataResponse {
  'deleted': (number);
}
