// Original file: protos/tide/v1/admin.proto


export interface DescribeConfigsRequest__Input {
  'topic'?: (string);
}

export interface DescribeConfigsRequest {
  'topic': (string);
}
