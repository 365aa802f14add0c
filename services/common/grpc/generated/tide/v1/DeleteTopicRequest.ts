// Original file: protos/tide/v1/admin.proto


export interface DeleteTopicRequest__Input {
  'name'?: (string);
}

export interface DeleteTopicRequest {
  'name': (string);
}
