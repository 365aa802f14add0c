// Original file: protos/tide/v1/streams.proto


export interface DescribeInstancesRequest__Input {
  'application_id'?: (string);
}

export interface DescribeInstancesRequest {
  'application_id': (string);
}
