// Original file: protos/tide/v1/coordinator.proto


export interface DescribeCoordinatorsRequest__Input {
}

export interface DescribeCoordinatorsRequest {
}
