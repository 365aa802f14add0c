// Original file: protos/tide/v1/admin.proto


export interface CreateAclsResponse__Input {
  'created'?: (number);
}

export interface CreateAclsResponse {
  'created': (number);
}
