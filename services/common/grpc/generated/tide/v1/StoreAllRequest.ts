// Original file: protos/tide/v1/streams.proto


export interface StoreAllRequest__Input {
  'application_id'?: (string);
  'store'?: (string);
  'local_only'?: (boolean);
  'limit'?: (number);
  'allow_stale'?: (boolean);
}

export interface StoreAllRequest {
  'application_id': (string);
  'store': (string);
  'local_only': (boolean);
  'limit': (number);
  'allow_stale': (boolean);
}
