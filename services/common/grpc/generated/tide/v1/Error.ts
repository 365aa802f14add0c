// Original file: protos/tide/v1/common.proto


export interface Error__Input {
  'code'?: (string);
  'message'?: (string);
  'retriable'?: (boolean);
}

export interface Error {
  'code': (string);
  'message': (string);
  'retriable': (boolean);
}
