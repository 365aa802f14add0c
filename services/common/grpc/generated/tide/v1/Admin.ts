// Original file: protos/tide/v1/admin.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AlterConfigsRequest__Input as _tide_v1_AlterConfigsRequest__Input, AlterConfigsRequest as _tide_v1_AlterConfigsRequest } from '../../tide/v1/AlterConfigsRequest';
import type { AlterConfigsResponse__Input as _tide_v1_AlterConfigsResponse__Input, AlterConfigsResponse as _tide_v1_AlterConfigsResponse } from '../../tide/v1/AlterConfigsResponse';
import type { CreateTopicRequest__Input as _tide_v1_CreateTopicRequest__Input, CreateTopicRequest as _tide_v1_CreateTopicRequest } from '../../tide/v1/CreateTopicRequest';
import type { CreateTopicResponse__Input as _tide_v1_CreateTopicResponse__Input, CreateTopicResponse as _tide_v1_CreateTopicResponse } from '../../tide/v1/CreateTopicResponse';
import type { DeleteTopicRequest__Input as _tide_v1_DeleteTopicRequest__Input, DeleteTopicRequest as _tide_v1_DeleteTopicRequest } from '../../tide/v1/DeleteTopicRequest';
import type { DeleteTopicResponse__Input as _tide_v1_DeleteTopicResponse__Input, DeleteTopicResponse as _tide_v1_DeleteTopicResponse } from '../../tide/v1/DeleteTopicResponse';
import type { DescribeClusterRequest__Input as _tide_v1_DescribeClusterRequest__Input, DescribeClusterRequest as _tide_v1_DescribeClusterRequest } from '../../tide/v1/DescribeClusterRequest';
import type { DescribeClusterResponse__Input as _tide_v1_DescribeClusterResponse__Input, DescribeClusterResponse as _tide_v1_DescribeClusterResponse } from '../../tide/v1/DescribeClusterResponse';
import type { DescribeConfigsRequest__Input as _tide_v1_DescribeConfigsRequest__Input, DescribeConfigsRequest as _tide_v1_DescribeConfigsRequest } from '../../tide/v1/DescribeConfigsRequest';
import type { DescribeConfigsResponse__Input as _tide_v1_DescribeConfigsResponse__Input, DescribeConfigsResponse as _tide_v1_DescribeConfigsResponse } from '../../tide/v1/DescribeConfigsResponse';
import type { DescribeTopicRequest__Input as _tide_v1_DescribeTopicRequest__Input, DescribeTopicRequest as _tide_v1_DescribeTopicRequest } from '../../tide/v1/DescribeTopicRequest';
import type { DescribeTopicResponse__Input as _tide_v1_DescribeTopicResponse__Input, DescribeTopicResponse as _tide_v1_DescribeTopicResponse } from '../../tide/v1/DescribeTopicResponse';
import type { ListTopicsRequest__Input as _tide_v1_ListTopicsRequest__Input, ListTopicsRequest as _tide_v1_ListTopicsRequest } from '../../tide/v1/ListTopicsRequest';
import type { ListTopicsResponse__Input as _tide_v1_ListTopicsResponse__Input, ListTopicsResponse as _tide_v1_ListTopicsResponse } from '../../tide/v1/ListTopicsResponse';

export interface AdminClient extends grpc.Client {
  AlterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  AlterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  AlterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  AlterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  alterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  alterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  alterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  alterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  
  CreateTopic(argument: _tide_v1_CreateTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  CreateTopic(argument: _tide_v1_CreateTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  CreateTopic(argument: _tide_v1_CreateTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  CreateTopic(argument: _tide_v1_CreateTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  createTopic(argument: _tide_v1_CreateTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  createTopic(argument: _tide_v1_CreateTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  createTopic(argument: _tide_v1_CreateTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  createTopic(argument: _tide_v1_CreateTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  
  DeleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  DeleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  DeleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  DeleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  deleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  deleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  deleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  deleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  
  DescribeCluster(argument: _tide_v1_DescribeClusterRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeClusterResponse>): grpc.ClientUnaryCall;
  DescribeCluster(argument: _tide_v1_DescribeClusterRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeClusterResponse>): grpc.ClientUnaryCall;
  DescribeCluster(argument: _tide_v1_DescribeClusterRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeClusterResponse>): grpc.ClientUnaryCall;
  DescribeCluster(argument: _tide_v1_DescribeClusterRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeClusterResponse>): grpc.ClientUnaryCall;
  describeCluster(argument: _tide_v1_DescribeClusterRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeClusterResponse>): grpc.ClientUnaryCall;
  describeCluster(argument: _tide_v1_DescribeClusterRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeClusterResponse>): grpc.ClientUnaryCall;
  describeCluster(argument: _tide_v1_DescribeClusterRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeClusterResponse>): grpc.ClientUnaryCall;
  describeCluster(argument: _tide_v1_DescribeClusterRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeClusterResponse>): grpc.ClientUnaryCall;
  
  DescribeConfigs(argument: _tide_v1_DescribeConfigsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeConfigsResponse>): grpc.ClientUnaryCall;
  DescribeConfigs(argument: _tide_v1_DescribeConfigsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeConfigsResponse>): grpc.ClientUnaryCall;
  DescribeConfigs(argument: _tide_v1_DescribeConfigsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeConfigsResponse>): grpc.ClientUnaryCall;
  DescribeConfigs(argument: _tide_v1_DescribeConfigsRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeConfigsResponse>): grpc.ClientUnaryCall;
  describeConfigs(argument: _tide_v1_DescribeConfigsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeConfigsResponse>): grpc.ClientUnaryCall;
  describeConfigs(argument: _tide_v1_DescribeConfigsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeConfigsResponse>): grpc.ClientUnaryCall;
  describeConfigs(argument: _tide_v1_DescribeConfigsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeConfigsResponse>): grpc.ClientUnaryCall;
  describeConfigs(argument: _tide_v1_DescribeConfigsRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeConfigsResponse>): grpc.ClientUnaryCall;
  
  DescribeTopic(argument: _tide_v1_DescribeTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  DescribeTopic(argument: _tide_v1_DescribeTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  DescribeTopic(argument: _tide_v1_DescribeTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  DescribeTopic(argument: _tide_v1_DescribeTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  describeTopic(argument: _tide_v1_DescribeTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  describeTopic(argument: _tide_v1_DescribeTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  describeTopic(argument: _tide_v1_DescribeTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  describeTopic(argument: _tide_v1_DescribeTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  
  ListTopics(argument: _tide_v1_ListTopicsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  ListTopics(argument: _tide_v1_ListTopicsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  ListTopics(argument: _tide_v1_ListTopicsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  ListTopics(argument: _tide_v1_ListTopicsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  listTopics(argument: _tide_v1_ListTopicsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  listTopics(argument: _tide_v1_ListTopicsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  listTopics(argument: _tide_v1_ListTopicsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  listTopics(argument: _tide_v1_ListTopicsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  
}

export interface AdminHandlers extends grpc.UntypedServiceImplementation {
  AlterConfigs: grpc.handleUnaryCall<_tide_v1_AlterConfigsRequest, _tide_v1_AlterConfigsResponse__Input>;
  
  CreateTopic: grpc.handleUnaryCall<_tide_v1_CreateTopicRequest, _tide_v1_CreateTopicResponse__Input>;
  
  DeleteTopic: grpc.handleUnaryCall<_tide_v1_DeleteTopicRequest, _tide_v1_DeleteTopicResponse__Input>;
  
  DescribeCluster: grpc.handleUnaryCall<_tide_v1_DescribeClusterRequest, _tide_v1_DescribeClusterResponse__Input>;
  
  DescribeConfigs: grpc.handleUnaryCall<_tide_v1_DescribeConfigsRequest, _tide_v1_DescribeConfigsResponse__Input>;
  
  DescribeTopic: grpc.handleUnaryCall<_tide_v1_DescribeTopicRequest, _tide_v1_DescribeTopicResponse__Input>;
  
  ListTopics: grpc.handleUnaryCall<_tide_v1_ListTopicsRequest, _tide_v1_ListTopicsResponse__Input>;
  
}

export interface AdminDefinition extends grpc.ServiceDefinition {
  AlterConfigs: MethodDefinition<_tide_v1_AlterConfigsRequest__Input, _tide_v1_AlterConfigsResponse__Input, _tide_v1_AlterConfigsRequest, _tide_v1_AlterConfigsResponse>
  CreateTopic: MethodDefinition<_tide_v1_CreateTopicRequest__Input, _tide_v1_CreateTopicResponse__Input, _tide_v1_CreateTopicRequest, _tide_v1_CreateTopicResponse>
  DeleteTopic: MethodDefinition<_tide_v1_DeleteTopicRequest__Input, _tide_v1_DeleteTopicResponse__Input, _tide_v1_DeleteTopicRequest, _tide_v1_DeleteTopicResponse>
  DescribeCluster: MethodDefinition<_tide_v1_DescribeClusterRequest__Input, _tide_v1_DescribeClusterResponse__Input, _tide_v1_DescribeClusterRequest, _tide_v1_DescribeClusterResponse>
  DescribeConfigs: MethodDefinition<_tide_v1_DescribeConfigsRequest__Input, _tide_v1_DescribeConfigsResponse__Input, _tide_v1_DescribeConfigsRequest, _tide_v1_DescribeConfigsResponse>
  DescribeTopic: MethodDefinition<_tide_v1_DescribeTopicRequest__Input, _tide_v1_DescribeTopicResponse__Input, _tide_v1_DescribeTopicRequest, _tide_v1_DescribeTopicResponse>
  ListTopics: MethodDefinition<_tide_v1_ListTopicsRequest__Input, _tide_v1_ListTopicsResponse__Input, _tide_v1_ListTopicsRequest, _tide_v1_ListTopicsResponse>
}
