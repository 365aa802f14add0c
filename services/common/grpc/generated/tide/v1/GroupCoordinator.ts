// Original file: protos/tide/v1/coordinator.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CommitOffsetsRequest__Input as _tide_v1_CommitOffsetsRequest__Input, CommitOffsetsRequest as _tide_v1_CommitOffsetsRequest } from '../../tide/v1/CommitOffsetsRequest';
import type { CommitOffsetsResponse__Input as _tide_v1_CommitOffsetsResponse__Input, CommitOffsetsResponse as _tide_v1_CommitOffsetsResponse } from '../../tide/v1/CommitOffsetsResponse';
import type { DeleteGroupRequest__Input as _tide_v1_DeleteGroupRequest__Input, DeleteGroupRequest as _tide_v1_DeleteGroupRequest } from '../../tide/v1/DeleteGroupRequest';
import type { DeleteGroupResponse__Input as _tide_v1_DeleteGroupResponse__Input, DeleteGroupResponse as _tide_v1_DeleteGroupResponse } from '../../tide/v1/DeleteGroupResponse';
import type { DescribeCoordinatorsRequest__Input as _tide_v1_DescribeCoordinatorsRequest__Input, DescribeCoordinatorsRequest as _tide_v1_DescribeCoordinatorsRequest } from '../../tide/v1/DescribeCoordinatorsRequest';
import type { DescribeCoordinatorsResponse__Input as _tide_v1_DescribeCoordinatorsResponse__Input, DescribeCoordinatorsResponse as _tide_v1_DescribeCoordinatorsResponse } from '../../tide/v1/DescribeCoordinatorsResponse';
import type { DescribeGroupRequest__Input as _tide_v1_DescribeGroupRequest__Input, DescribeGroupRequest as _tide_v1_DescribeGroupRequest } from '../../tide/v1/DescribeGroupRequest';
import type { DescribeGroupResponse__Input as _tide_v1_DescribeGroupResponse__Input, DescribeGroupResponse as _tide_v1_DescribeGroupResponse } from '../../tide/v1/DescribeGroupResponse';
import type { FetchOffsetsRequest__Input as _tide_v1_FetchOffsetsRequest__Input, FetchOffsetsRequest as _tide_v1_FetchOffsetsRequest } from '../../tide/v1/FetchOffsetsRequest';
import type { FetchOffsetsResponse__Input as _tide_v1_FetchOffsetsResponse__Input, FetchOffsetsResponse as _tide_v1_FetchOffsetsResponse } from '../../tide/v1/FetchOffsetsResponse';
import type { FindCoordinatorRequest__Input as _tide_v1_FindCoordinatorRequest__Input, FindCoordinatorRequest as _tide_v1_FindCoordinatorRequest } from '../../tide/v1/FindCoordinatorRequest';
import type { FindCoordinatorResponse__Input as _tide_v1_FindCoordinatorResponse__Input, FindCoordinatorResponse as _tide_v1_FindCoordinatorResponse } from '../../tide/v1/FindCoordinatorResponse';
import type { ListGroupsRequest__Input as _tide_v1_ListGroupsRequest__Input, ListGroupsRequest as _tide_v1_ListGroupsRequest } from '../../tide/v1/ListGroupsRequest';
import type { ListGroupsResponse__Input as _tide_v1_ListGroupsResponse__Input, ListGroupsResponse as _tide_v1_ListGroupsResponse } from '../../tide/v1/ListGroupsResponse';
import type { MemberRequest__Input as _tide_v1_MemberRequest__Input, MemberRequest as _tide_v1_MemberRequest } from '../../tide/v1/MemberRequest';
import type { MemberResponse__Input as _tide_v1_MemberResponse__Input, MemberResponse as _tide_v1_MemberResponse } from '../../tide/v1/MemberResponse';
import type { ResetOffsetsRequest__Input as _tide_v1_ResetOffsetsRequest__Input, ResetOffsetsRequest as _tide_v1_ResetOffsetsRequest } from '../../tide/v1/ResetOffsetsRequest';
import type { ResetOffsetsResponse__Input as _tide_v1_ResetOffsetsResponse__Input, ResetOffsetsResponse as _tide_v1_ResetOffsetsResponse } from '../../tide/v1/ResetOffsetsResponse';

export interface GroupCoordinatorClient extends grpc.Client {
  CommitOffsets(argument: _tide_v1_CommitOffsetsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CommitOffsetsResponse>): grpc.ClientUnaryCall;
  CommitOffsets(argument: _tide_v1_CommitOffsetsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CommitOffsetsResponse>): grpc.ClientUnaryCall;
  CommitOffsets(argument: _tide_v1_CommitOffsetsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CommitOffsetsResponse>): grpc.ClientUnaryCall;
  CommitOffsets(argument: _tide_v1_CommitOffsetsRequest__Input, callback: grpc.requestCallback<_tide_v1_CommitOffsetsResponse>): grpc.ClientUnaryCall;
  commitOffsets(argument: _tide_v1_CommitOffsetsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CommitOffsetsResponse>): grpc.ClientUnaryCall;
  commitOffsets(argument: _tide_v1_CommitOffsetsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CommitOffsetsResponse>): grpc.ClientUnaryCall;
  commitOffsets(argument: _tide_v1_CommitOffsetsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CommitOffsetsResponse>): grpc.ClientUnaryCall;
  commitOffsets(argument: _tide_v1_CommitOffsetsRequest__Input, callback: grpc.requestCallback<_tide_v1_CommitOffsetsResponse>): grpc.ClientUnaryCall;
  
  DeleteGroup(argument: _tide_v1_DeleteGroupRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteGroupResponse>): grpc.ClientUnaryCall;
  DeleteGroup(argument: _tide_v1_DeleteGroupRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DeleteGroupResponse>): grpc.ClientUnaryCall;
  DeleteGroup(argument: _tide_v1_DeleteGroupRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteGroupResponse>): grpc.ClientUnaryCall;
  DeleteGroup(argument: _tide_v1_DeleteGroupRequest__Input, callback: grpc.requestCallback<_tide_v1_DeleteGroupResponse>): grpc.ClientUnaryCall;
  deleteGroup(argument: _tide_v1_DeleteGroupRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteGroupResponse>): grpc.ClientUnaryCall;
  deleteGroup(argument: _tide_v1_DeleteGroupRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DeleteGroupResponse>): grpc.ClientUnaryCall;
  deleteGroup(argument: _tide_v1_DeleteGroupRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteGroupResponse>): grpc.ClientUnaryCall;
  deleteGroup(argument: _tide_v1_DeleteGroupRequest__Input, callback: grpc.requestCallback<_tide_v1_DeleteGroupResponse>): grpc.ClientUnaryCall;
  
  DescribeCoordinators(argument: _tide_v1_DescribeCoordinatorsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeCoordinatorsResponse>): grpc.ClientUnaryCall;
  DescribeCoordinators(argument: _tide_v1_DescribeCoordinatorsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeCoordinatorsResponse>): grpc.ClientUnaryCall;
  DescribeCoordinators(argument: _tide_v1_DescribeCoordinatorsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeCoordinatorsResponse>): grpc.ClientUnaryCall;
  DescribeCoordinators(argument: _tide_v1_DescribeCoordinatorsRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeCoordinatorsResponse>): grpc.ClientUnaryCall;
  describeCoordinators(argument: _tide_v1_DescribeCoordinatorsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeCoordinatorsResponse>): grpc.ClientUnaryCall;
  describeCoordinators(argument: _tide_v1_DescribeCoordinatorsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeCoordinatorsResponse>): grpc.ClientUnaryCall;
  describeCoordinators(argument: _tide_v1_DescribeCoordinatorsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeCoordinatorsResponse>): grpc.ClientUnaryCall;
  describeCoordinators(argument: _tide_v1_DescribeCoordinatorsRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeCoordinatorsResponse>): grpc.ClientUnaryCall;
  
  DescribeGroup(argument: _tide_v1_DescribeGroupRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeGroupResponse>): grpc.ClientUnaryCall;
  DescribeGroup(argument: _tide_v1_DescribeGroupRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeGroupResponse>): grpc.ClientUnaryCall;
  DescribeGroup(argument: _tide_v1_DescribeGroupRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeGroupResponse>): grpc.ClientUnaryCall;
  DescribeGroup(argument: _tide_v1_DescribeGroupRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeGroupResponse>): grpc.ClientUnaryCall;
  describeGroup(argument: _tide_v1_DescribeGroupRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeGroupResponse>): grpc.ClientUnaryCall;
  describeGroup(argument: _tide_v1_DescribeGroupRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeGroupResponse>): grpc.ClientUnaryCall;
  describeGroup(argument: _tide_v1_DescribeGroupRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeGroupResponse>): grpc.ClientUnaryCall;
  describeGroup(argument: _tide_v1_DescribeGroupRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeGroupResponse>): grpc.ClientUnaryCall;
  
  FetchOffsets(argument: _tide_v1_FetchOffsetsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FetchOffsetsResponse>): grpc.ClientUnaryCall;
  FetchOffsets(argument: _tide_v1_FetchOffsetsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_FetchOffsetsResponse>): grpc.ClientUnaryCall;
  FetchOffsets(argument: _tide_v1_FetchOffsetsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FetchOffsetsResponse>): grpc.ClientUnaryCall;
  FetchOffsets(argument: _tide_v1_FetchOffsetsRequest__Input, callback: grpc.requestCallback<_tide_v1_FetchOffsetsResponse>): grpc.ClientUnaryCall;
  fetchOffsets(argument: _tide_v1_FetchOffsetsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FetchOffsetsResponse>): grpc.ClientUnaryCall;
  fetchOffsets(argument: _tide_v1_FetchOffsetsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_FetchOffsetsResponse>): grpc.ClientUnaryCall;
  fetchOffsets(argument: _tide_v1_FetchOffsetsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FetchOffsetsResponse>): grpc.ClientUnaryCall;
  fetchOffsets(argument: _tide_v1_FetchOffsetsRequest__Input, callback: grpc.requestCallback<_tide_v1_FetchOffsetsResponse>): grpc.ClientUnaryCall;
  
  FindCoordinator(argument: _tide_v1_FindCoordinatorRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  FindCoordinator(argument: _tide_v1_FindCoordinatorRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  FindCoordinator(argument: _tide_v1_FindCoordinatorRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  FindCoordinator(argument: _tide_v1_FindCoordinatorRequest__Input, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  findCoordinator(argument: _tide_v1_FindCoordinatorRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  findCoordinator(argument: _tide_v1_FindCoordinatorRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  findCoordinator(argument: _tide_v1_FindCoordinatorRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  findCoordinator(argument: _tide_v1_FindCoordinatorRequest__Input, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  
  ListGroups(argument: _tide_v1_ListGroupsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListGroupsResponse>): grpc.ClientUnaryCall;
  ListGroups(argument: _tide_v1_ListGroupsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListGroupsResponse>): grpc.ClientUnaryCall;
  ListGroups(argument: _tide_v1_ListGroupsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListGroupsResponse>): grpc.ClientUnaryCall;
  ListGroups(argument: _tide_v1_ListGroupsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListGroupsResponse>): grpc.ClientUnaryCall;
  listGroups(argument: _tide_v1_ListGroupsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListGroupsResponse>): grpc.ClientUnaryCall;
  listGroups(argument: _tide_v1_ListGroupsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListGroupsResponse>): grpc.ClientUnaryCall;
  listGroups(argument: _tide_v1_ListGroupsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListGroupsResponse>): grpc.ClientUnaryCall;
  listGroups(argument: _tide_v1_ListGroupsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListGroupsResponse>): grpc.ClientUnaryCall;
  
  Membership(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_MemberRequest__Input, _tide_v1_MemberResponse>;
  Membership(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_MemberRequest__Input, _tide_v1_MemberResponse>;
  membership(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_MemberRequest__Input, _tide_v1_MemberResponse>;
  membership(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_MemberRequest__Input, _tide_v1_MemberResponse>;
  
  ResetOffsets(argument: _tide_v1_ResetOffsetsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ResetOffsetsResponse>): grpc.ClientUnaryCall;
  ResetOffsets(argument: _tide_v1_ResetOffsetsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ResetOffsetsResponse>): grpc.ClientUnaryCall;
  ResetOffsets(argument: _tide_v1_ResetOffsetsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ResetOffsetsResponse>): grpc.ClientUnaryCall;
  ResetOffsets(argument: _tide_v1_ResetOffsetsRequest__Input, callback: grpc.requestCallback<_tide_v1_ResetOffsetsResponse>): grpc.ClientUnaryCall;
  resetOffsets(argument: _tide_v1_ResetOffsetsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ResetOffsetsResponse>): grpc.ClientUnaryCall;
  resetOffsets(argument: _tide_v1_ResetOffsetsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ResetOffsetsResponse>): grpc.ClientUnaryCall;
  resetOffsets(argument: _tide_v1_ResetOffsetsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ResetOffsetsResponse>): grpc.ClientUnaryCall;
  resetOffsets(argument: _tide_v1_ResetOffsetsRequest__Input, callback: grpc.requestCallback<_tide_v1_ResetOffsetsResponse>): grpc.ClientUnaryCall;
  
}

export interface GroupCoordinatorHandlers extends grpc.UntypedServiceImplementation {
  CommitOffsets: grpc.handleUnaryCall<_tide_v1_CommitOffsetsRequest, _tide_v1_CommitOffsetsResponse__Input>;
  
  DeleteGroup: grpc.handleUnaryCall<_tide_v1_DeleteGroupRequest, _tide_v1_DeleteGroupResponse__Input>;
  
  DescribeCoordinators: grpc.handleUnaryCall<_tide_v1_DescribeCoordinatorsRequest, _tide_v1_DescribeCoordinatorsResponse__Input>;
  
  DescribeGroup: grpc.handleUnaryCall<_tide_v1_DescribeGroupRequest, _tide_v1_DescribeGroupResponse__Input>;
  
  FetchOffsets: grpc.handleUnaryCall<_tide_v1_FetchOffsetsRequest, _tide_v1_FetchOffsetsResponse__Input>;
  
  FindCoordinator: grpc.handleUnaryCall<_tide_v1_FindCoordinatorRequest, _tide_v1_FindCoordinatorResponse__Input>;
  
  ListGroups: grpc.handleUnaryCall<_tide_v1_ListGroupsRequest, _tide_v1_ListGroupsResponse__Input>;
  
  Membership: grpc.handleBidiStreamingCall<_tide_v1_MemberRequest, _tide_v1_MemberResponse__Input>;
  
  ResetOffsets: grpc.handleUnaryCall<_tide_v1_ResetOffsetsRequest, _tide_v1_ResetOffsetsResponse__Input>;
  
}

export interface GroupCoordinatorDefinition extends grpc.ServiceDefinition {
  CommitOffsets: MethodDefinition<_tide_v1_CommitOffsetsRequest__Input, _tide_v1_CommitOffsetsResponse__Input, _tide_v1_CommitOffsetsRequest, _tide_v1_CommitOffsetsResponse>
  DeleteGroup: MethodDefinition<_tide_v1_DeleteGroupRequest__Input, _tide_v1_DeleteGroupResponse__Input, _tide_v1_DeleteGroupRequest, _tide_v1_DeleteGroupResponse>
  DescribeCoordinators: MethodDefinition<_tide_v1_DescribeCoordinatorsRequest__Input, _tide_v1_DescribeCoordinatorsResponse__Input, _tide_v1_DescribeCoordinatorsRequest, _tide_v1_DescribeCoordinatorsResponse>
  DescribeGroup: MethodDefinition<_tide_v1_DescribeGroupRequest__Input, _tide_v1_DescribeGroupResponse__Input, _tide_v1_DescribeGroupRequest, _tide_v1_DescribeGroupResponse>
  FetchOffsets: MethodDefinition<_tide_v1_FetchOffsetsRequest__Input, _tide_v1_FetchOffsetsResponse__Input, _tide_v1_FetchOffsetsRequest, _tide_v1_FetchOffsetsResponse>
  FindCoordinator: MethodDefinition<_tide_v1_FindCoordinatorRequest__Input, _tide_v1_FindCoordinatorResponse__Input, _tide_v1_FindCoordinatorRequest, _tide_v1_FindCoordinatorResponse>
  ListGroups: MethodDefinition<_tide_v1_ListGroupsRequest__Input, _tide_v1_ListGroupsResponse__Input, _tide_v1_ListGroupsRequest, _tide_v1_ListGroupsResponse>
  Membership: MethodDefinition<_tide_v1_MemberRequest__Input, _tide_v1_MemberResponse__Input, _tide_v1_MemberRequest, _tide_v1_MemberResponse>
  ResetOffsets: MethodDefinition<_tide_v1_ResetOffsetsRequest__Input, _tide_v1_ResetOffsetsResponse__Input, _tide_v1_ResetOffsetsRequest, _tide_v1_ResetOffsetsResponse>
}
