// Original file: protos/tide/v1/streams.proto


export interface StoreGetRequest__Input {
  'application_id'?: (string);
  'store'?: (string);
  'key'?: (Buffer | Uint8Array | string);
  'local_only'?: (boolean);
  'allow_stale'?: (boolean);
}

export interface StoreGetRequest {
  'application_id': (string);
  'store': (string);
  'key': (Buffer);
  'local_only': (boolean);
  'allow_stale': (boolean);
}
