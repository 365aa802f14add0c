// Original file: protos/tide/v1/admin.proto


export interface DescribeClusterRequest__Input {
}

export interface DescribeClusterRequest {
}
