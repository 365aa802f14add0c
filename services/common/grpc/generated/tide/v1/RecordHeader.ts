// Original file: protos/tide/v1/common.proto


export interface RecordHeader__Input {
  'key'?: (string);
  'value'?: (Buffer | Uint8Array | string);
}

export interface RecordHeader {
  'key': (string);
  'value': (Buffer);
}
