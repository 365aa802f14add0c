// Original file: protos/tide/v1/admin.proto


export interface DescribeTopicRequest__Input {
  'name'?: (string);
}

export interface DescribeTopicRequest {
  'name': (string);
}
