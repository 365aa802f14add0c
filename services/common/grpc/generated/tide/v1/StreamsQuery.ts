// Original file: protos/tide/v1/streams.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DescribeInstancesRequest__Input as _tide_v1_DescribeInstancesRequest__Input, DescribeInstancesRequest as _tide_v1_DescribeInstancesRequest } from '../../tide/v1/DescribeInstancesRequest';
import type { DescribeInstancesResponse__Input as _tide_v1_DescribeInstancesResponse__Input, DescribeInstancesResponse as _tide_v1_DescribeInstancesResponse } from '../../tide/v1/DescribeInstancesResponse';
import type { StoreAllRequest__Input as _tide_v1_StoreAllRequest__Input, StoreAllRequest as _tide_v1_StoreAllRequest } from '../../tide/v1/StoreAllRequest';
import type { StoreAllResponse__Input as _tide_v1_StoreAllResponse__Input, StoreAllResponse as _tide_v1_StoreAllResponse } from '../../tide/v1/StoreAllResponse';
import type { StoreGetRequest__Input as _tide_v1_StoreGetRequest__Input, StoreGetRequest as _tide_v1_StoreGetRequest } from '../../tide/v1/StoreGetRequest';
import type { StoreGetResponse__Input as _tide_v1_StoreGetResponse__Input, StoreGetResponse as _tide_v1_StoreGetResponse } from '../../tide/v1/StoreGetResponse';
import type { StoreRangeRequest__Input as _tide_v1_StoreRangeRequest__Input, StoreRangeRequest as _tide_v1_StoreRangeRequest } from '../../tide/v1/StoreRangeRequest';
import type { WindowFetchRequest__Input as _tide_v1_WindowFetchRequest__Input, WindowFetchRequest as _tide_v1_WindowFetchRequest } from '../../tide/v1/WindowFetchRequest';
import type { WindowFetchResponse__Input as _tide_v1_WindowFetchResponse__Input, WindowFetchResponse as _tide_v1_WindowFetchResponse } from '../../tide/v1/WindowFetchResponse';

export interface StreamsQueryClient extends grpc.Client {
  All(argument: _tide_v1_StoreAllRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  All(argument: _tide_v1_StoreAllRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  All(argument: _tide_v1_StoreAllRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  All(argument: _tide_v1_StoreAllRequest__Input, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  all(argument: _tide_v1_StoreAllRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  all(argument: _tide_v1_StoreAllRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  all(argument: _tide_v1_StoreAllRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  all(argument: _tide_v1_StoreAllRequest__Input, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  
  DescribeInstances(argument: _tide_v1_DescribeInstancesRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeInstancesResponse>): grpc.ClientUnaryCall;
  DescribeInstances(argument: _tide_v1_DescribeInstancesRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeInstancesResponse>): grpc.ClientUnaryCall;
  DescribeInstances(argument: _tide_v1_DescribeInstancesRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeInstancesResponse>): grpc.ClientUnaryCall;
  DescribeInstances(argument: _tide_v1_DescribeInstancesRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeInstancesResponse>): grpc.ClientUnaryCall;
  describeInstances(argument: _tide_v1_DescribeInstancesRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeInstancesResponse>): grpc.ClientUnaryCall;
  describeInstances(argument: _tide_v1_DescribeInstancesRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeInstancesResponse>): grpc.ClientUnaryCall;
  describeInstances(argument: _tide_v1_DescribeInstancesRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeInstancesResponse>): grpc.ClientUnaryCall;
  describeInstances(argument: _tide_v1_DescribeInstancesRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeInstancesResponse>): grpc.ClientUnaryCall;
  
  FetchWindows(argument: _tide_v1_WindowFetchRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_WindowFetchResponse>): grpc.ClientUnaryCall;
  FetchWindows(argument: _tide_v1_WindowFetchRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_WindowFetchResponse>): grpc.ClientUnaryCall;
  FetchWindows(argument: _tide_v1_WindowFetchRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_WindowFetchResponse>): grpc.ClientUnaryCall;
  FetchWindows(argument: _tide_v1_WindowFetchRequest__Input, callback: grpc.requestCallback<_tide_v1_WindowFetchResponse>): grpc.ClientUnaryCall;
  fetchWindows(argument: _tide_v1_WindowFetchRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_WindowFetchResponse>): grpc.ClientUnaryCall;
  fetchWindows(argument: _tide_v1_WindowFetchRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_WindowFetchResponse>): grpc.ClientUnaryCall;
  fetchWindows(argument: _tide_v1_WindowFetchRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_WindowFetchResponse>): grpc.ClientUnaryCall;
  fetchWindows(argument: _tide_v1_WindowFetchRequest__Input, callback: grpc.requestCallback<_tide_v1_WindowFetchResponse>): grpc.ClientUnaryCall;
  
  Get(argument: _tide_v1_StoreGetRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreGetResponse>): grpc.ClientUnaryCall;
  Get(argument: _tide_v1_StoreGetRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_StoreGetResponse>): grpc.ClientUnaryCall;
  Get(argument: _tide_v1_StoreGetRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreGetResponse>): grpc.ClientUnaryCall;
  Get(argument: _tide_v1_StoreGetRequest__Input, callback: grpc.requestCallback<_tide_v1_StoreGetResponse>): grpc.ClientUnaryCall;
  get(argument: _tide_v1_StoreGetRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreGetResponse>): grpc.ClientUnaryCall;
  get(argument: _tide_v1_StoreGetRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_StoreGetResponse>): grpc.ClientUnaryCall;
  get(argument: _tide_v1_StoreGetRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreGetResponse>): grpc.ClientUnaryCall;
  get(argument: _tide_v1_StoreGetRequest__Input, callback: grpc.requestCallback<_tide_v1_StoreGetResponse>): grpc.ClientUnaryCall;
  
  Range(argument: _tide_v1_StoreRangeRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  Range(argument: _tide_v1_StoreRangeRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  Range(argument: _tide_v1_StoreRangeRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  Range(argument: _tide_v1_StoreRangeRequest__Input, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  range(argument: _tide_v1_StoreRangeRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  range(argument: _tide_v1_StoreRangeRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  range(argument: _tide_v1_StoreRangeRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  range(argument: _tide_v1_StoreRangeRequest__Input, callback: grpc.requestCallback<_tide_v1_StoreAllResponse>): grpc.ClientUnaryCall;
  
}

export interface StreamsQueryHandlers extends grpc.UntypedServiceImplementation {
  All: grpc.handleUnaryCall<_tide_v1_StoreAllRequest, _tide_v1_StoreAllResponse__Input>;
  
  DescribeInstances: grpc.handleUnaryCall<_tide_v1_DescribeInstancesRequest, _tide_v1_DescribeInstancesResponse__Input>;
  
  FetchWindows: grpc.handleUnaryCall<_tide_v1_WindowFetchRequest, _tide_v1_WindowFetchResponse__Input>;
  
  Get: grpc.handleUnaryCall<_tide_v1_StoreGetRequest, _tide_v1_StoreGetResponse__Input>;
  
  Range: grpc.handleUnaryCall<_tide_v1_StoreRangeRequest, _tide_v1_StoreAllResponse__Input>;
  
}

export interface StreamsQueryDefinition extends grpc.ServiceDefinition {
  All: MethodDefinition<_tide_v1_StoreAllRequest__Input, _tide_v1_StoreAllResponse__Input, _tide_v1_StoreAllRequest, _tide_v1_StoreAllResponse>
  DescribeInstances: MethodDefinition<_tide_v1_DescribeInstancesRequest__Input, _tide_v1_DescribeInstancesResponse__Input, _tide_v1_DescribeInstancesRequest, _tide_v1_DescribeInstancesResponse>
  FetchWindows: MethodDefinition<_tide_v1_WindowFetchRequest__Input, _tide_v1_WindowFetchResponse__Input, _tide_v1_WindowFetchRequest, _tide_v1_WindowFetchResponse>
  Get: MethodDefinition<_tide_v1_StoreGetRequest__Input, _tide_v1_StoreGetResponse__Input, _tide_v1_StoreGetRequest, _tide_v1_StoreGetResponse>
  Range: MethodDefinition<_tide_v1_StoreRangeRequest__Input, _tide_v1_StoreAllResponse__Input, _tide_v1_StoreRangeRequest, _tide_v1_StoreAllResponse>
}
