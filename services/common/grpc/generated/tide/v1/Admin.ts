// Original file: protos/tide/v1/admin.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AlterClientQuotasRequest__Input as _tide_v1_AlterClientQuotasRequest__Input, AlterClientQuotasRequest as _tide_v1_AlterClientQuotasRequest } from '../../tide/v1/AlterClientQuotasRequest';
import type { AlterClientQuotasResponse__Input as _tide_v1_AlterClientQuotasResponse__Input, AlterClientQuotasResponse as _tide_v1_AlterClientQuotasResponse } from '../../tide/v1/AlterClientQuotasResponse';
import type { AlterConfigsRequest__Input as _tide_v1_AlterConfigsRequest__Input, AlterConfigsRequest as _tide_v1_AlterConfigsRequest } from '../../tide/v1/AlterConfigsRequest';
import type { AlterConfigsResponse__Input as _tide_v1_AlterConfigsResponse__Input, AlterConfigsResponse as _tide_v1_AlterConfigsResponse } from '../../tide/v1/AlterConfigsResponse';
import type { AlterPartitionReassignmentsRequest__Input as _tide_v1_AlterPartitionReassignmentsRequest__Input, AlterPartitionReassignmentsRequest as _tide_v1_AlterPartitionReassignmentsRequest } from '../../tide/v1/AlterPartitionReassignmentsRequest';
import type { AlterPartitionReassignmentsResponse__Input as _tide_v1_AlterPartitionReassignmentsResponse__Input, AlterPartitionReassignmentsResponse as _tide_v1_AlterPartitionReassignmentsResponse } from '../../tide/v1/AlterPartitionReassignmentsResponse';
import type { CreateAclsRequest__Input as _tide_v1_CreateAclsRequest__Input, CreateAclsRequest as _tide_v1_CreateAclsRequest } from '../../tide/v1/CreateAclsRequest';
import type { CreateAclsResponse__Input as _tide_v1_CreateAclsResponse__Input, CreateAclsResponse as _tide_v1_CreateAclsResponse } from '../../tide/v1/CreateAclsResponse';
import type { CreatePartitionsRequest__Input as _tide_v1_CreatePartitionsRequest__Input, CreatePartitionsRequest as _tide_v1_CreatePartitionsRequest } from '../../tide/v1/CreatePartitionsRequest';
import type { CreatePartitionsResponse__Input as _tide_v1_CreatePartitionsResponse__Input, CreatePartitionsResponse as _tide_v1_CreatePartitionsResponse } from '../../tide/v1/CreatePartitionsResponse';
import type { CreateTopicRequest__Input as _tide_v1_CreateTopicRequest__Input, CreateTopicRequest as _tide_v1_CreateTopicRequest } from '../../tide/v1/CreateTopicRequest';
import type { CreateTopicResponse__Input as _tide_v1_CreateTopicResponse__Input, CreateTopicResponse as _tide_v1_CreateTopicResponse } from '../../tide/v1/CreateTopicResponse';
import type { DecommissionBrokerRequest__Input as _tide_v1_DecommissionBrokerRequest__Input, DecommissionBrokerRequest as _tide_v1_DecommissionBrokerRequest } from '../../tide/v1/DecommissionBrokerRequest';
import type { DecommissionStatus__Input as _tide_v1_DecommissionStatus__Input, DecommissionStatus as _tide_v1_DecommissionStatus } from '../../tide/v1/DecommissionStatus';
import type { DeleteAclsRequest__Input as _tide_v1_DeleteAclsRequest__Input, DeleteAclsRequest as _tide_v1_DeleteAclsRequest } from '../../tide/v1/DeleteAclsRequest';
import type { DeleteAclsResponse__Input as _tide_v1_DeleteAclsResponse__Input, DeleteAclsResponse as _tide_v1_DeleteAclsResponse } from '../../tide/v1/DeleteAclsResponse';
import type { DeleteRecordsRequest__Input as _tide_v1_DeleteRecordsRequest__Input, DeleteRecordsRequest as _tide_v1_DeleteRecordsRequest } from '../../tide/v1/DeleteRecordsRequest';
import type { DeleteRecordsResponse__Input as _tide_v1_DeleteRecordsResponse__Input, DeleteRecordsResponse as _tide_v1_DeleteRecordsResponse } from '../../tide/v1/DeleteRecordsResponse';
import type { DeleteTopicRequest__Input as _tide_v1_DeleteTopicRequest__Input, DeleteTopicRequest as _tide_v1_DeleteTopicRequest } from '../../tide/v1/DeleteTopicRequest';
import type { DeleteTopicResponse__Input as _tide_v1_DeleteTopicResponse__Input, DeleteTopicResponse as _tide_v1_DeleteTopicResponse } from '../../tide/v1/DeleteTopicResponse';
import type { DescribeAclsRequest__Input as _tide_v1_DescribeAclsRequest__Input, DescribeAclsRequest as _tide_v1_DescribeAclsRequest } from '../../tide/v1/DescribeAclsRequest';
import type { DescribeAclsResponse__Input as _tide_v1_DescribeAclsResponse__Input, DescribeAclsResponse as _tide_v1_DescribeAclsResponse } from '../../tide/v1/DescribeAclsResponse';
import type { DescribeClientQuotasRequest__Input as _tide_v1_DescribeClientQuotasRequest__Input, DescribeClientQuotasRequest as _tide_v1_DescribeClientQuotasRequest } from '../../tide/v1/DescribeClientQuotasRequest';
import type { DescribeClientQuotasResponse__Input as _tide_v1_DescribeClientQuotasResponse__Input, DescribeClientQuotasResponse as _tide_v1_DescribeClientQuotasResponse } from '../../tide/v1/DescribeClientQuotasResponse';
import type { DescribeClusterRequest__Input as _tide_v1_DescribeClusterRequest__Input, DescribeClusterRequest as _tide_v1_DescribeClusterRequest } from '../../tide/v1/DescribeClusterRequest';
import type { DescribeClusterResponse__Input as _tide_v1_DescribeClusterResponse__Input, DescribeClusterResponse as _tide_v1_DescribeClusterResponse } from '../../tide/v1/DescribeClusterResponse';
import type { DescribeConfigsRequest__Input as _tide_v1_DescribeConfigsRequest__Input, DescribeConfigsRequest as _tide_v1_DescribeConfigsRequest } from '../../tide/v1/DescribeConfigsRequest';
import type { DescribeConfigsResponse__Input as _tide_v1_DescribeConfigsResponse__Input, DescribeConfigsResponse as _tide_v1_DescribeConfigsResponse } from '../../tide/v1/DescribeConfigsResponse';
import type { DescribeTopicRequest__Input as _tide_v1_DescribeTopicRequest__Input, DescribeTopicRequest as _tide_v1_DescribeTopicRequest } from '../../tide/v1/DescribeTopicRequest';
import type { DescribeTopicResponse__Input as _tide_v1_DescribeTopicResponse__Input, DescribeTopicResponse as _tide_v1_DescribeTopicResponse } from '../../tide/v1/DescribeTopicResponse';
import type { ListPartitionReassignmentsRequest__Input as _tide_v1_ListPartitionReassignmentsRequest__Input, ListPartitionReassignmentsRequest as _tide_v1_ListPartitionReassignmentsRequest } from '../../tide/v1/ListPartitionReassignmentsRequest';
import type { ListPartitionReassignmentsResponse__Input as _tide_v1_ListPartitionReassignmentsResponse__Input, ListPartitionReassignmentsResponse as _tide_v1_ListPartitionReassignmentsResponse } from '../../tide/v1/ListPartitionReassignmentsResponse';
import type { ListTopicsRequest__Input as _tide_v1_ListTopicsRequest__Input, ListTopicsRequest as _tide_v1_ListTopicsRequest } from '../../tide/v1/ListTopicsRequest';
import type { ListTopicsResponse__Input as _tide_v1_ListTopicsResponse__Input, ListTopicsResponse as _tide_v1_ListTopicsResponse } from '../../tide/v1/ListTopicsResponse';

export interface AdminClient extends grpc.Client {
  AlterClientQuotas(argument: _tide_v1_AlterClientQuotasRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterClientQuotasResponse>): grpc.ClientUnaryCall;
  AlterClientQuotas(argument: _tide_v1_AlterClientQuotasRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AlterClientQuotasResponse>): grpc.ClientUnaryCall;
  AlterClientQuotas(argument: _tide_v1_AlterClientQuotasRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterClientQuotasResponse>): grpc.ClientUnaryCall;
  AlterClientQuotas(argument: _tide_v1_AlterClientQuotasRequest__Input, callback: grpc.requestCallback<_tide_v1_AlterClientQuotasResponse>): grpc.ClientUnaryCall;
  alterClientQuotas(argument: _tide_v1_AlterClientQuotasRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterClientQuotasResponse>): grpc.ClientUnaryCall;
  alterClientQuotas(argument: _tide_v1_AlterClientQuotasRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AlterClientQuotasResponse>): grpc.ClientUnaryCall;
  alterClientQuotas(argument: _tide_v1_AlterClientQuotasRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterClientQuotasResponse>): grpc.ClientUnaryCall;
  alterClientQuotas(argument: _tide_v1_AlterClientQuotasRequest__Input, callback: grpc.requestCallback<_tide_v1_AlterClientQuotasResponse>): grpc.ClientUnaryCall;
  
  AlterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  AlterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  AlterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  AlterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  alterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  alterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  alterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  alterConfigs(argument: _tide_v1_AlterConfigsRequest__Input, callback: grpc.requestCallback<_tide_v1_AlterConfigsResponse>): grpc.ClientUnaryCall;
  
  AlterPartitionReassignments(argument: _tide_v1_AlterPartitionReassignmentsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  AlterPartitionReassignments(argument: _tide_v1_AlterPartitionReassignmentsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AlterPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  AlterPartitionReassignments(argument: _tide_v1_AlterPartitionReassignmentsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  AlterPartitionReassignments(argument: _tide_v1_AlterPartitionReassignmentsRequest__Input, callback: grpc.requestCallback<_tide_v1_AlterPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  alterPartitionReassignments(argument: _tide_v1_AlterPartitionReassignmentsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  alterPartitionReassignments(argument: _tide_v1_AlterPartitionReassignmentsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AlterPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  alterPartitionReassignments(argument: _tide_v1_AlterPartitionReassignmentsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AlterPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  alterPartitionReassignments(argument: _tide_v1_AlterPartitionReassignmentsRequest__Input, callback: grpc.requestCallback<_tide_v1_AlterPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  
  CreateAcls(argument: _tide_v1_CreateAclsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateAclsResponse>): grpc.ClientUnaryCall;
  CreateAcls(argument: _tide_v1_CreateAclsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CreateAclsResponse>): grpc.ClientUnaryCall;
  CreateAcls(argument: _tide_v1_CreateAclsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateAclsResponse>): grpc.ClientUnaryCall;
  CreateAcls(argument: _tide_v1_CreateAclsRequest__Input, callback: grpc.requestCallback<_tide_v1_CreateAclsResponse>): grpc.ClientUnaryCall;
  createAcls(argument: _tide_v1_CreateAclsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateAclsResponse>): grpc.ClientUnaryCall;
  createAcls(argument: _tide_v1_CreateAclsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CreateAclsResponse>): grpc.ClientUnaryCall;
  createAcls(argument: _tide_v1_CreateAclsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateAclsResponse>): grpc.ClientUnaryCall;
  createAcls(argument: _tide_v1_CreateAclsRequest__Input, callback: grpc.requestCallback<_tide_v1_CreateAclsResponse>): grpc.ClientUnaryCall;
  
  CreatePartitions(argument: _tide_v1_CreatePartitionsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreatePartitionsResponse>): grpc.ClientUnaryCall;
  CreatePartitions(argument: _tide_v1_CreatePartitionsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CreatePartitionsResponse>): grpc.ClientUnaryCall;
  CreatePartitions(argument: _tide_v1_CreatePartitionsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreatePartitionsResponse>): grpc.ClientUnaryCall;
  CreatePartitions(argument: _tide_v1_CreatePartitionsRequest__Input, callback: grpc.requestCallback<_tide_v1_CreatePartitionsResponse>): grpc.ClientUnaryCall;
  createPartitions(argument: _tide_v1_CreatePartitionsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreatePartitionsResponse>): grpc.ClientUnaryCall;
  createPartitions(argument: _tide_v1_CreatePartitionsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CreatePartitionsResponse>): grpc.ClientUnaryCall;
  createPartitions(argument: _tide_v1_CreatePartitionsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreatePartitionsResponse>): grpc.ClientUnaryCall;
  createPartitions(argument: _tide_v1_CreatePartitionsRequest__Input, callback: grpc.requestCallback<_tide_v1_CreatePartitionsResponse>): grpc.ClientUnaryCall;
  
  CreateTopic(argument: _tide_v1_CreateTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  CreateTopic(argument: _tide_v1_CreateTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  CreateTopic(argument: _tide_v1_CreateTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  CreateTopic(argument: _tide_v1_CreateTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  createTopic(argument: _tide_v1_CreateTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  createTopic(argument: _tide_v1_CreateTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  createTopic(argument: _tide_v1_CreateTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  createTopic(argument: _tide_v1_CreateTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_CreateTopicResponse>): grpc.ClientUnaryCall;
  
  DecommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  DecommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  DecommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  DecommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  decommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  decommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  decommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  decommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  
  DeleteAcls(argument: _tide_v1_DeleteAclsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteAclsResponse>): grpc.ClientUnaryCall;
  DeleteAcls(argument: _tide_v1_DeleteAclsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DeleteAclsResponse>): grpc.ClientUnaryCall;
  DeleteAcls(argument: _tide_v1_DeleteAclsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteAclsResponse>): grpc.ClientUnaryCall;
  DeleteAcls(argument: _tide_v1_DeleteAclsRequest__Input, callback: grpc.requestCallback<_tide_v1_DeleteAclsResponse>): grpc.ClientUnaryCall;
  deleteAcls(argument: _tide_v1_DeleteAclsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteAclsResponse>): grpc.ClientUnaryCall;
  deleteAcls(argument: _tide_v1_DeleteAclsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DeleteAclsResponse>): grpc.ClientUnaryCall;
  deleteAcls(argument: _tide_v1_DeleteAclsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteAclsResponse>): grpc.ClientUnaryCall;
  deleteAcls(argument: _tide_v1_DeleteAclsRequest__Input, callback: grpc.requestCallback<_tide_v1_DeleteAclsResponse>): grpc.ClientUnaryCall;
  
  DeleteRecords(argument: _tide_v1_DeleteRecordsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteRecordsResponse>): grpc.ClientUnaryCall;
  DeleteRecords(argument: _tide_v1_DeleteRecordsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DeleteRecordsResponse>): grpc.ClientUnaryCall;
  DeleteRecords(argument: _tide_v1_DeleteRecordsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteRecordsResponse>): grpc.ClientUnaryCall;
  DeleteRecords(argument: _tide_v1_DeleteRecordsRequest__Input, callback: grpc.requestCallback<_tide_v1_DeleteRecordsResponse>): grpc.ClientUnaryCall;
  deleteRecords(argument: _tide_v1_DeleteRecordsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteRecordsResponse>): grpc.ClientUnaryCall;
  deleteRecords(argument: _tide_v1_DeleteRecordsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DeleteRecordsResponse>): grpc.ClientUnaryCall;
  deleteRecords(argument: _tide_v1_DeleteRecordsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteRecordsResponse>): grpc.ClientUnaryCall;
  deleteRecords(argument: _tide_v1_DeleteRecordsRequest__Input, callback: grpc.requestCallback<_tide_v1_DeleteRecordsResponse>): grpc.ClientUnaryCall;
  
  DeleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  DeleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  DeleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  DeleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  deleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  deleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  deleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  deleteTopic(argument: _tide_v1_DeleteTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_DeleteTopicResponse>): grpc.ClientUnaryCall;
  
  DescribeAcls(argument: _tide_v1_DescribeAclsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeAclsResponse>): grpc.ClientUnaryCall;
  DescribeAcls(argument: _tide_v1_DescribeAclsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeAclsResponse>): grpc.ClientUnaryCall;
  DescribeAcls(argument: _tide_v1_DescribeAclsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeAclsResponse>): grpc.ClientUnaryCall;
  DescribeAcls(argument: _tide_v1_DescribeAclsRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeAclsResponse>): grpc.ClientUnaryCall;
  describeAcls(argument: _tide_v1_DescribeAclsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeAclsResponse>): grpc.ClientUnaryCall;
  describeAcls(argument: _tide_v1_DescribeAclsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeAclsResponse>): grpc.ClientUnaryCall;
  describeAcls(argument: _tide_v1_DescribeAclsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeAclsResponse>): grpc.ClientUnaryCall;
  describeAcls(argument: _tide_v1_DescribeAclsRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeAclsResponse>): grpc.ClientUnaryCall;
  
  DescribeClientQuotas(argument: _tide_v1_DescribeClientQuotasRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeClientQuotasResponse>): grpc.ClientUnaryCall;
  DescribeClientQuotas(argument: _tide_v1_DescribeClientQuotasRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeClientQuotasResponse>): grpc.ClientUnaryCall;
  DescribeClientQuotas(argument: _tide_v1_DescribeClientQuotasRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeClientQuotasResponse>): grpc.ClientUnaryCall;
  DescribeClientQuotas(argument: _tide_v1_DescribeClientQuotasRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeClientQuotasResponse>): grpc.ClientUnaryCall;
  describeClientQuotas(argument: _tide_v1_DescribeClientQuotasRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeClientQuotasResponse>): grpc.ClientUnaryCall;
  describeClientQuotas(argument: _tide_v1_DescribeClientQuotasRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeClientQuotasResponse>): grpc.ClientUnaryCall;
  describeClientQuotas(argument: _tide_v1_DescribeClientQuotasRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeClientQuotasResponse>): grpc.ClientUnaryCall;
  describeClientQuotas(argument: _tide_v1_DescribeClientQuotasRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeClientQuotasResponse>): grpc.ClientUnaryCall;
  
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
  
  DescribeDecommission(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  DescribeDecommission(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  DescribeDecommission(argument: _tide_v1_DecommissionBrokerRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  DescribeDecommission(argument: _tide_v1_DecommissionBrokerRequest__Input, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  describeDecommission(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  describeDecommission(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  describeDecommission(argument: _tide_v1_DecommissionBrokerRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  describeDecommission(argument: _tide_v1_DecommissionBrokerRequest__Input, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  
  DescribeTopic(argument: _tide_v1_DescribeTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  DescribeTopic(argument: _tide_v1_DescribeTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  DescribeTopic(argument: _tide_v1_DescribeTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  DescribeTopic(argument: _tide_v1_DescribeTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  describeTopic(argument: _tide_v1_DescribeTopicRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  describeTopic(argument: _tide_v1_DescribeTopicRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  describeTopic(argument: _tide_v1_DescribeTopicRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  describeTopic(argument: _tide_v1_DescribeTopicRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeTopicResponse>): grpc.ClientUnaryCall;
  
  ListPartitionReassignments(argument: _tide_v1_ListPartitionReassignmentsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  ListPartitionReassignments(argument: _tide_v1_ListPartitionReassignmentsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  ListPartitionReassignments(argument: _tide_v1_ListPartitionReassignmentsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  ListPartitionReassignments(argument: _tide_v1_ListPartitionReassignmentsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  listPartitionReassignments(argument: _tide_v1_ListPartitionReassignmentsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  listPartitionReassignments(argument: _tide_v1_ListPartitionReassignmentsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  listPartitionReassignments(argument: _tide_v1_ListPartitionReassignmentsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  listPartitionReassignments(argument: _tide_v1_ListPartitionReassignmentsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListPartitionReassignmentsResponse>): grpc.ClientUnaryCall;
  
  ListTopics(argument: _tide_v1_ListTopicsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  ListTopics(argument: _tide_v1_ListTopicsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  ListTopics(argument: _tide_v1_ListTopicsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  ListTopics(argument: _tide_v1_ListTopicsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  listTopics(argument: _tide_v1_ListTopicsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  listTopics(argument: _tide_v1_ListTopicsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  listTopics(argument: _tide_v1_ListTopicsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  listTopics(argument: _tide_v1_ListTopicsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListTopicsResponse>): grpc.ClientUnaryCall;
  
  RecommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  RecommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  RecommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  RecommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  recommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  recommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  recommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  recommissionBroker(argument: _tide_v1_DecommissionBrokerRequest__Input, callback: grpc.requestCallback<_tide_v1_DecommissionStatus>): grpc.ClientUnaryCall;
  
}

export interface AdminHandlers extends grpc.UntypedServiceImplementation {
  AlterClientQuotas: grpc.handleUnaryCall<_tide_v1_AlterClientQuotasRequest, _tide_v1_AlterClientQuotasResponse__Input>;
  
  AlterConfigs: grpc.handleUnaryCall<_tide_v1_AlterConfigsRequest, _tide_v1_AlterConfigsResponse__Input>;
  
  AlterPartitionReassignments: grpc.handleUnaryCall<_tide_v1_AlterPartitionReassignmentsRequest, _tide_v1_AlterPartitionReassignmentsResponse__Input>;
  
  CreateAcls: grpc.handleUnaryCall<_tide_v1_CreateAclsRequest, _tide_v1_CreateAclsResponse__Input>;
  
  CreatePartitions: grpc.handleUnaryCall<_tide_v1_CreatePartitionsRequest, _tide_v1_CreatePartitionsResponse__Input>;
  
  CreateTopic: grpc.handleUnaryCall<_tide_v1_CreateTopicRequest, _tide_v1_CreateTopicResponse__Input>;
  
  DecommissionBroker: grpc.handleUnaryCall<_tide_v1_DecommissionBrokerRequest, _tide_v1_DecommissionStatus__Input>;
  
  DeleteAcls: grpc.handleUnaryCall<_tide_v1_DeleteAclsRequest, _tide_v1_DeleteAclsResponse__Input>;
  
  DeleteRecords: grpc.handleUnaryCall<_tide_v1_DeleteRecordsRequest, _tide_v1_DeleteRecordsResponse__Input>;
  
  DeleteTopic: grpc.handleUnaryCall<_tide_v1_DeleteTopicRequest, _tide_v1_DeleteTopicResponse__Input>;
  
  DescribeAcls: grpc.handleUnaryCall<_tide_v1_DescribeAclsRequest, _tide_v1_DescribeAclsResponse__Input>;
  
  DescribeClientQuotas: grpc.handleUnaryCall<_tide_v1_DescribeClientQuotasRequest, _tide_v1_DescribeClientQuotasResponse__Input>;
  
  DescribeCluster: grpc.handleUnaryCall<_tide_v1_DescribeClusterRequest, _tide_v1_DescribeClusterResponse__Input>;
  
  DescribeConfigs: grpc.handleUnaryCall<_tide_v1_DescribeConfigsRequest, _tide_v1_DescribeConfigsResponse__Input>;
  
  DescribeDecommission: grpc.handleUnaryCall<_tide_v1_DecommissionBrokerRequest, _tide_v1_DecommissionStatus__Input>;
  
  DescribeTopic: grpc.handleUnaryCall<_tide_v1_DescribeTopicRequest, _tide_v1_DescribeTopicResponse__Input>;
  
  ListPartitionReassignments: grpc.handleUnaryCall<_tide_v1_ListPartitionReassignmentsRequest, _tide_v1_ListPartitionReassignmentsResponse__Input>;
  
  ListTopics: grpc.handleUnaryCall<_tide_v1_ListTopicsRequest, _tide_v1_ListTopicsResponse__Input>;
  
  RecommissionBroker: grpc.handleUnaryCall<_tide_v1_DecommissionBrokerRequest, _tide_v1_DecommissionStatus__Input>;
  
}

export interface AdminDefinition extends grpc.ServiceDefinition {
  AlterClientQuotas: MethodDefinition<_tide_v1_AlterClientQuotasRequest__Input, _tide_v1_AlterClientQuotasResponse__Input, _tide_v1_AlterClientQuotasRequest, _tide_v1_AlterClientQuotasResponse>
  AlterConfigs: MethodDefinition<_tide_v1_AlterConfigsRequest__Input, _tide_v1_AlterConfigsResponse__Input, _tide_v1_AlterConfigsRequest, _tide_v1_AlterConfigsResponse>
  AlterPartitionReassignments: MethodDefinition<_tide_v1_AlterPartitionReassignmentsRequest__Input, _tide_v1_AlterPartitionReassignmentsResponse__Input, _tide_v1_AlterPartitionReassignmentsRequest, _tide_v1_AlterPartitionReassignmentsResponse>
  CreateAcls: MethodDefinition<_tide_v1_CreateAclsRequest__Input, _tide_v1_CreateAclsResponse__Input, _tide_v1_CreateAclsRequest, _tide_v1_CreateAclsResponse>
  CreatePartitions: MethodDefinition<_tide_v1_CreatePartitionsRequest__Input, _tide_v1_CreatePartitionsResponse__Input, _tide_v1_CreatePartitionsRequest, _tide_v1_CreatePartitionsResponse>
  CreateTopic: MethodDefinition<_tide_v1_CreateTopicRequest__Input, _tide_v1_CreateTopicResponse__Input, _tide_v1_CreateTopicRequest, _tide_v1_CreateTopicResponse>
  DecommissionBroker: MethodDefinition<_tide_v1_DecommissionBrokerRequest__Input, _tide_v1_DecommissionStatus__Input, _tide_v1_DecommissionBrokerRequest, _tide_v1_DecommissionStatus>
  DeleteAcls: MethodDefinition<_tide_v1_DeleteAclsRequest__Input, _tide_v1_DeleteAclsResponse__Input, _tide_v1_DeleteAclsRequest, _tide_v1_DeleteAclsResponse>
  DeleteRecords: MethodDefinition<_tide_v1_DeleteRecordsRequest__Input, _tide_v1_DeleteRecordsResponse__Input, _tide_v1_DeleteRecordsRequest, _tide_v1_DeleteRecordsResponse>
  DeleteTopic: MethodDefinition<_tide_v1_DeleteTopicRequest__Input, _tide_v1_DeleteTopicResponse__Input, _tide_v1_DeleteTopicRequest, _tide_v1_DeleteTopicResponse>
  DescribeAcls: MethodDefinition<_tide_v1_DescribeAclsRequest__Input, _tide_v1_DescribeAclsResponse__Input, _tide_v1_DescribeAclsRequest, _tide_v1_DescribeAclsResponse>
  DescribeClientQuotas: MethodDefinition<_tide_v1_DescribeClientQuotasRequest__Input, _tide_v1_DescribeClientQuotasResponse__Input, _tide_v1_DescribeClientQuotasRequest, _tide_v1_DescribeClientQuotasResponse>
  DescribeCluster: MethodDefinition<_tide_v1_DescribeClusterRequest__Input, _tide_v1_DescribeClusterResponse__Input, _tide_v1_DescribeClusterRequest, _tide_v1_DescribeClusterResponse>
  DescribeConfigs: MethodDefinition<_tide_v1_DescribeConfigsRequest__Input, _tide_v1_DescribeConfigsResponse__Input, _tide_v1_DescribeConfigsRequest, _tide_v1_DescribeConfigsResponse>
  DescribeDecommission: MethodDefinition<_tide_v1_DecommissionBrokerRequest__Input, _tide_v1_DecommissionStatus__Input, _tide_v1_DecommissionBrokerRequest, _tide_v1_DecommissionStatus>
  DescribeTopic: MethodDefinition<_tide_v1_DescribeTopicRequest__Input, _tide_v1_DescribeTopicResponse__Input, _tide_v1_DescribeTopicRequest, _tide_v1_DescribeTopicResponse>
  ListPartitionReassignments: MethodDefinition<_tide_v1_ListPartitionReassignmentsRequest__Input, _tide_v1_ListPartitionReassignmentsResponse__Input, _tide_v1_ListPartitionReassignmentsRequest, _tide_v1_ListPartitionReassignmentsResponse>
  ListTopics: MethodDefinition<_tide_v1_ListTopicsRequest__Input, _tide_v1_ListTopicsResponse__Input, _tide_v1_ListTopicsRequest, _tide_v1_ListTopicsResponse>
  RecommissionBroker: MethodDefinition<_tide_v1_DecommissionBrokerRequest__Input, _tide_v1_DecommissionStatus__Input, _tide_v1_DecommissionBrokerRequest, _tide_v1_DecommissionStatus>
}
