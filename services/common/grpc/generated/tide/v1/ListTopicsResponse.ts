// Original file: protos/tide/v1/admin.proto


export interface ListTopicsResponse__Input {
  'names'?: (string)[];
}

export interface ListTopicsResponse {
  'names': (string)[];
}
