// Original file: protos/tide/v1/streams.proto


export interface StoreRangeRequest__Input {
  'application_id'?: (string);
  'store'?: (string);
  'from_key'?: (Buffer | Uint8Array | string);
  'to_key'?: (Buffer | Uint8Array | string);
  'local_only'?: (boolean);
  'limit'?: (number);
  'allow_stale'?: (boolean);
}

export interface StoreRangeRequest {
  'application_id': (string);
  'store': (string);
  'from_key': (Buffer);
  'to_key': (Buffer);
  'local_only': (boolean);
  'limit': (number);
  'allow_stale': (boolean);
}
