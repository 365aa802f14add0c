// Original file: protos/tide/v1/controller.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AlterPartitionRequest__Input as _tide_v1_AlterPartitionRequest__Input, AlterPartitionRequest as _tide_v1_AlterPartitionRequest } from '../../tide/v1/AlterPartitionRequest';
import type { AlterPartitionResponse__Input as _tide_v1_AlterPartitionResponse__Input, AlterPartitionResponse as _tide_v1_AlterPartitionResponse } from '../../tide/v1/AlterPartitionResponse';
import type { ControlledShutdownRequest__Input as _tide_v1_ControlledShutdownRequest__Input, ControlledShutdownRequest as _tide_v1_ControlledShutdownRequest } from '../../tide/v1/ControlledShutdownRequest';
import type { ControlledShutdownResponse__Input as _tide_v1_ControlledShutdownResponse__Input, ControlledShutdownResponse as _tide_v1_ControlledShutdownResponse } from '../../tide/v1/ControlledShutdownResponse';
import type { CreateInternalTopicRequest__Input as _tide_v1_CreateInternalTopicRequest__Input, CreateInternalTopicRequest as _tide_v1_CreateInternalTopicRequest } from '../../tide/v1/CreateInternalTopicRequest';
import type { CreateInternalTopicResponse__Input as _tide_v1_CreateInternalTopicResponse__Input, CreateInternalTopicResponse as _tide_v1_CreateInternalTopicResponse } from '../../tide/v1/CreateInternalTopicResponse';
import type { ReportLeaderUnreachableRequest__Input as _tide_v1_ReportLeaderUnreachableRequest__Input, ReportLeaderUnreachableRequest as _tide_v1_ReportLeaderUnreachableRequest } from '../../tide/v1/ReportLeaderUnreachableRequest';
import type { ReportLeaderUnreachableResponse__Input as _tide_v1_ReportLeaderUnreachableResponse__Input, ReportLeaderUnreachableResponse as _tide_v1_ReportLeaderUnreachableResponse } from '../../tide/v1/ReportLeaderUnreachableResponse';
import type { ReportReplicaOfflineRequest__Input as _tide_v1_ReportReplicaOfflineRequest__Input, ReportReplicaOfflineRequest as _tide_v1_ReportReplicaOfflineRequest } from '../../tide/v1/ReportReplicaOfflineRequest';
import type { ReportReplicaOfflineResponse__Input as _tide_v1_ReportReplicaOfflineResponse__Input, ReportReplicaOfflineResponse as _tide_v1_ReportReplicaOfflineResponse } from '../../tide/v1/ReportReplicaOfflineResponse';

export interface ControllerClient extends grpc.Client {
  AlterPartition(argument: _tide_v1_AlterPartitionRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterPartitionResponse>): grpc.ClientUnaryCall;
  AlterPartition(argument: _tide_v1_AlterPartitionRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AlterPartitionResponse>): grpc.ClientUnaryCall;
  AlterPartition(argument: _tide_v1_AlterPartitionRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterPartitionResponse>): grpc.ClientUnaryCall;
  AlterPartition(argument: _tide_v1_AlterPartitionRequest__Input, callback: grpc.requestCallback<_tide_v1_AlterPartitionResponse>): grpc.ClientUnaryCall;
  alterPartition(argument: _tide_v1_AlterPartitionRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterPartitionResponse>): grpc.ClientUnaryCall;
  alterPartition(argument: _tide_v1_AlterPartitionRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AlterPartitionResponse>): grpc.ClientUnaryCall;
  alterPartition(argument: _tide_v1_AlterPartitionRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterPartitionResponse>): grpc.ClientUnaryCall;
  alterPartition(argument: _tide_v1_AlterPartitionRequest__Input, callback: grpc.requestCallback<_tide_v1_AlterPartitionResponse>): grpc.ClientUnaryCall;
  
  ControlledShutdown(argument: _tide_v1_ControlledShutdownRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ControlledShutdownResponse>): grpc.ClientUnaryCall;
  ControlledShutdown(argument: _tide_v1_ControlledShutdownRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ControlledShutdownResponse>): grpc.ClientUnaryCall;
  ControlledShutdown(argument: _tide_v1_ControlledShutdownRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ControlledShutdownResponse>): grpc.ClientUnaryCall;
  ControlledShutdown(argument: _tide_v1_ControlledShutdownRequest__Input, callback: grpc.requestCallback<_tide_v1_ControlledShutdownResponse>): grpc.ClientUnaryCall;
  controlledShutdown(argument: _tide_v1_ControlledShutdownRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ControlledShutdownResponse>): grpc.ClientUnaryCall;
  controlledShutdown(argument: _tide_v1_ControlledShutdownRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ControlledShutdownResponse>): grpc.ClientUnaryCall;
  controlledShutdown(argument: _tide_v1_ControlledShutdownRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ControlledShutdownResponse>): grpc.ClientUnaryCall;
  controlledShutdown(argument: _tide_v1_ControlledShutdownRequest__Input, callback: grpc.requestCallback<_tide_v1_ControlledShutdownResponse>): grpc.ClientUnaryCall;
  
  CreateInternalTopic(argument: _tide_v1_CreateInternalTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateInternalTopicResponse>): grpc.ClientUnaryCall;
  CreateInternalTopic(argument: _tide_v1_CreateInternalTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CreateInternalTopicResponse>): grpc.ClientUnaryCall;
  CreateInternalTopic(argument: _tide_v1_CreateInternalTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateInternalTopicResponse>): grpc.ClientUnaryCall;
  CreateInternalTopic(argument: _tide_v1_CreateInternalTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_CreateInternalTopicResponse>): grpc.ClientUnaryCall;
  createInternalTopic(argument: _tide_v1_CreateInternalTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateInternalTopicResponse>): grpc.ClientUnaryCall;
  createInternalTopic(argument: _tide_v1_CreateInternalTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CreateInternalTopicResponse>): grpc.ClientUnaryCall;
  createInternalTopic(argument: _tide_v1_CreateInternalTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateInternalTopicResponse>): grpc.ClientUnaryCall;
  createInternalTopic(argument: _tide_v1_CreateInternalTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_CreateInternalTopicResponse>): grpc.ClientUnaryCall;
  
  ReportLeaderUnreachable(argument: _tide_v1_ReportLeaderUnreachableRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ReportLeaderUnreachableResponse>): grpc.ClientUnaryCall;
  ReportLeaderUnreachable(argument: _tide_v1_ReportLeaderUnreachableRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ReportLeaderUnreachableResponse>): grpc.ClientUnaryCall;
  ReportLeaderUnreachable(argument: _tide_v1_ReportLeaderUnreachableRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ReportLeaderUnreachableResponse>): grpc.ClientUnaryCall;
  ReportLeaderUnreachable(argument: _tide_v1_ReportLeaderUnreachableRequest__Input, callback: grpc.requestCallback<_tide_v1_ReportLeaderUnreachableResponse>): grpc.ClientUnaryCall;
  reportLeaderUnreachable(argument: _tide_v1_ReportLeaderUnreachableRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ReportLeaderUnreachableResponse>): grpc.ClientUnaryCall;
  reportLeaderUnreachable(argument: _tide_v1_ReportLeaderUnreachableRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ReportLeaderUnreachableResponse>): grpc.ClientUnaryCall;
  reportLeaderUnreachable(argument: _tide_v1_ReportLeaderUnreachableRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ReportLeaderUnreachableResponse>): grpc.ClientUnaryCall;
  reportLeaderUnreachable(argument: _tide_v1_ReportLeaderUnreachableRequest__Input, callback: grpc.requestCallback<_tide_v1_ReportLeaderUnreachableResponse>): grpc.ClientUnaryCall;
  
  ReportReplicaOffline(argument: _tide_v1_ReportReplicaOfflineRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ReportReplicaOfflineResponse>): grpc.ClientUnaryCall;
  ReportReplicaOffline(argument: _tide_v1_ReportReplicaOfflineRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ReportReplicaOfflineResponse>): grpc.ClientUnaryCall;
  ReportReplicaOffline(argument: _tide_v1_ReportReplicaOfflineRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ReportReplicaOfflineResponse>): grpc.ClientUnaryCall;
  ReportReplicaOffline(argument: _tide_v1_ReportReplicaOfflineRequest__Input, callback: grpc.requestCallback<_tide_v1_ReportReplicaOfflineResponse>): grpc.ClientUnaryCall;
  reportReplicaOffline(argument: _tide_v1_ReportReplicaOfflineRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ReportReplicaOfflineResponse>): grpc.ClientUnaryCall;
  reportReplicaOffline(argument: _tide_v1_ReportReplicaOfflineRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ReportReplicaOfflineResponse>): grpc.ClientUnaryCall;
  reportReplicaOffline(argument: _tide_v1_ReportReplicaOfflineRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ReportReplicaOfflineResponse>): grpc.ClientUnaryCall;
  reportReplicaOffline(argument: _tide_v1_ReportReplicaOfflineRequest__Input, callback: grpc.requestCallback<_tide_v1_ReportReplicaOfflineResponse>): grpc.ClientUnaryCall;
  
}

export interface ControllerHandlers extends grpc.UntypedServiceImplementation {
  AlterPartition: grpc.handleUnaryCall<_tide_v1_AlterPartitionRequest, _tide_v1_AlterPartitionResponse__Input>;
  
  ControlledShutdown: grpc.handleUnaryCall<_tide_v1_ControlledShutdownRequest, _tide_v1_ControlledShutdownResponse__Input>;
  
  CreateInternalTopic: grpc.handleUnaryCall<_tide_v1_CreateInternalTopicRequest, _tide_v1_CreateInternalTopicResponse__Input>;
  
  ReportLeaderUnreachable: grpc.handleUnaryCall<_tide_v1_ReportLeaderUnreachableRequest, _tide_v1_ReportLeaderUnreachableResponse__Input>;
  
  ReportReplicaOffline: grpc.handleUnaryCall<_tide_v1_ReportReplicaOfflineRequest, _tide_v1_ReportReplicaOfflineResponse__Input>;
  
}

export interface ControllerDefinition extends grpc.ServiceDefinition {
  AlterPartition: MethodDefinition<_tide_v1_AlterPartitionRequest__Input, _tide_v1_AlterPartitionResponse__Input, _tide_v1_AlterPartitionRequest, _tide_v1_AlterPartitionResponse>
  ControlledShutdown: MethodDefinition<_tide_v1_ControlledShutdownRequest__Input, _tide_v1_ControlledShutdownResponse__Input, _tide_v1_ControlledShutdownRequest, _tide_v1_ControlledShutdownResponse>
  CreateInternalTopic: MethodDefinition<_tide_v1_CreateInternalTopicRequest__Input, _tide_v1_CreateInternalTopicResponse__Input, _tide_v1_CreateInternalTopicRequest, _tide_v1_CreateInternalTopicResponse>
  ReportLeaderUnreachable: MethodDefinition<_tide_v1_ReportLeaderUnreachableRequest__Input, _tide_v1_ReportLeaderUnreachableResponse__Input, _tide_v1_ReportLeaderUnreachableRequest, _tide_v1_ReportLeaderUnreachableResponse>
  ReportReplicaOffline: MethodDefinition<_tide_v1_ReportReplicaOfflineRequest__Input, _tide_v1_ReportReplicaOfflineResponse__Input, _tide_v1_ReportReplicaOfflineRequest, _tide_v1_ReportReplicaOfflineResponse>
}
