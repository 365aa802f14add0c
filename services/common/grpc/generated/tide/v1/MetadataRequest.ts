// Original file: protos/tide/v1/broker.proto


export interface MetadataRequest__Input {
  'topics'?: (string)[];
}

export interface MetadataRequest {
  'topics': (string)[];
}
