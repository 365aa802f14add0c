// Original file: protos/tide/v1/admin.proto


export interface ListTopicsRequest__Input {
  'include_internal'?: (boolean);
}

export interface ListTopicsRequest {
  'include_internal': (boolean);
}
