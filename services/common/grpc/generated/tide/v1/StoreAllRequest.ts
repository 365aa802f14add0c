// Original file: protos/tide/v1/streams.proto


export interface StoreAllRequest__Input {
  'application_id'?: (string);
  'store'?: (string);
  'local_only'?: (boolean);
  'limit'?: (number);
}

export interface StoreAllRequest {
  'application_id': (string);
  'store': (string);
  'local_only': (boolean);
  'limit': (number);
}
