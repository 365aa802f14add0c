// Original file: protos/tide/v1/coordinator.proto


export interface DescribeGroupRequest__Input {
  'group_id'?: (string);
}

export interface DescribeGroupRequest {
  'group_id': (string);
}
