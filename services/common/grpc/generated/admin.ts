import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AdminClient as _tide_v1_AdminClient, AdminDefinition as _tide_v1_AdminDefinition } from './tide/v1/Admin';
import type { AlterConfigsRequest__Input as _tide_v1_AlterConfigsRequest__Input, AlterConfigsRequest as _tide_v1_AlterConfigsRequest } from './tide/v1/AlterConfigsRequest';
import type { AlterConfigsResponse__Input as _tide_v1_AlterConfigsResponse__Input, AlterConfigsResponse as _tide_v1_AlterConfigsResponse } from './tide/v1/AlterConfigsResponse';
import type { BrokerInfo__Input as _tide_v1_BrokerInfo__Input, BrokerInfo as _tide_v1_BrokerInfo } from './tide/v1/BrokerInfo';
import type { ConfigEntry__Input as _tide_v1_ConfigEntry__Input, ConfigEntry as _tide_v1_ConfigEntry } from './tide/v1/ConfigEntry';
import type { CreateTopicRequest__Input as _tide_v1_CreateTopicRequest__Input, CreateTopicRequest as _tide_v1_CreateTopicRequest } from './tide/v1/CreateTopicRequest';
import type { CreateTopicResponse__Input as _tide_v1_CreateTopicResponse__Input, CreateTopicResponse as _tide_v1_CreateTopicResponse } from './tide/v1/CreateTopicResponse';
import type { DeleteTopicRequest__Input as _tide_v1_DeleteTopicRequest__Input, DeleteTopicRequest as _tide_v1_DeleteTopicRequest } from './tide/v1/DeleteTopicRequest';
import type { DeleteTopicResponse__Input as _tide_v1_DeleteTopicResponse__Input, DeleteTopicResponse as _tide_v1_DeleteTopicResponse } from './tide/v1/DeleteTopicResponse';
import type { DescribeClusterRequest__Input as _tide_v1_DescribeClusterRequest__Input, DescribeClusterRequest as _tide_v1_DescribeClusterRequest } from './tide/v1/DescribeClusterRequest';
import type { DescribeClusterResponse__Input as _tide_v1_DescribeClusterResponse__Input, DescribeClusterResponse as _tide_v1_DescribeClusterResponse } from './tide/v1/DescribeClusterResponse';
import type { DescribeConfigsRequest__Input as _tide_v1_DescribeConfigsRequest__Input, DescribeConfigsRequest as _tide_v1_DescribeConfigsRequest } from './tide/v1/DescribeConfigsRequest';
import type { DescribeConfigsResponse__Input as _tide_v1_DescribeConfigsResponse__Input, DescribeConfigsResponse as _tide_v1_DescribeConfigsResponse } from './tide/v1/DescribeConfigsResponse';
import type { DescribeTopicRequest__Input as _tide_v1_DescribeTopicRequest__Input, DescribeTopicRequest as _tide_v1_DescribeTopicRequest } from './tide/v1/DescribeTopicRequest';
import type { DescribeTopicResponse__Input as _tide_v1_DescribeTopicResponse__Input, DescribeTopicResponse as _tide_v1_DescribeTopicResponse } from './tide/v1/DescribeTopicResponse';
import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from './tide/v1/Error';
import type { ListTopicsRequest__Input as _tide_v1_ListTopicsRequest__Input, ListTopicsRequest as _tide_v1_ListTopicsRequest } from './tide/v1/ListTopicsRequest';
import type { ListTopicsResponse__Input as _tide_v1_ListTopicsResponse__Input, ListTopicsResponse as _tide_v1_ListTopicsResponse } from './tide/v1/ListTopicsResponse';
import type { PartitionInfo__Input as _tide_v1_PartitionInfo__Input, PartitionInfo as _tide_v1_PartitionInfo } from './tide/v1/PartitionInfo';
import type { PartitionStatus__Input as _tide_v1_PartitionStatus__Input, PartitionStatus as _tide_v1_PartitionStatus } from './tide/v1/PartitionStatus';
import type { Record__Input as _tide_v1_Record__Input, Record as _tide_v1_Record } from './tide/v1/Record';
import type { RecordHeader__Input as _tide_v1_RecordHeader__Input, RecordHeader as _tide_v1_RecordHeader } from './tide/v1/RecordHeader';
import type { TopicInfo__Input as _tide_v1_TopicInfo__Input, TopicInfo as _tide_v1_TopicInfo } from './tide/v1/TopicInfo';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  tide: {
    v1: {
      Acks: EnumTypeDefinition
      Admin: SubtypeConstructor<typeof grpc.Client, _tide_v1_AdminClient> & { service: _tide_v1_AdminDefinition }
      AlterConfigsRequest: MessageTypeDefinition<_tide_v1_AlterConfigsRequest__Input, _tide_v1_AlterConfigsRequest>
      AlterConfigsResponse: MessageTypeDefinition<_tide_v1_AlterConfigsResponse__Input, _tide_v1_AlterConfigsResponse>
      BrokerInfo: MessageTypeDefinition<_tide_v1_BrokerInfo__Input, _tide_v1_BrokerInfo>
      ConfigEntry: MessageTypeDefinition<_tide_v1_ConfigEntry__Input, _tide_v1_ConfigEntry>
      CreateTopicRequest: MessageTypeDefinition<_tide_v1_CreateTopicRequest__Input, _tide_v1_CreateTopicRequest>
      CreateTopicResponse: MessageTypeDefinition<_tide_v1_CreateTopicResponse__Input, _tide_v1_CreateTopicResponse>
      DeleteTopicRequest: MessageTypeDefinition<_tide_v1_DeleteTopicRequest__Input, _tide_v1_DeleteTopicRequest>
      DeleteTopicResponse: MessageTypeDefinition<_tide_v1_DeleteTopicResponse__Input, _tide_v1_DeleteTopicResponse>
      DescribeClusterRequest: MessageTypeDefinition<_tide_v1_DescribeClusterRequest__Input, _tide_v1_DescribeClusterRequest>
      DescribeClusterResponse: MessageTypeDefinition<_tide_v1_DescribeClusterResponse__Input, _tide_v1_DescribeClusterResponse>
      DescribeConfigsRequest: MessageTypeDefinition<_tide_v1_DescribeConfigsRequest__Input, _tide_v1_DescribeConfigsRequest>
      DescribeConfigsResponse: MessageTypeDefinition<_tide_v1_DescribeConfigsResponse__Input, _tide_v1_DescribeConfigsResponse>
      DescribeTopicRequest: MessageTypeDefinition<_tide_v1_DescribeTopicRequest__Input, _tide_v1_DescribeTopicRequest>
      DescribeTopicResponse: MessageTypeDefinition<_tide_v1_DescribeTopicResponse__Input, _tide_v1_DescribeTopicResponse>
      Error: MessageTypeDefinition<_tide_v1_Error__Input, _tide_v1_Error>
      ListTopicsRequest: MessageTypeDefinition<_tide_v1_ListTopicsRequest__Input, _tide_v1_ListTopicsRequest>
      ListTopicsResponse: MessageTypeDefinition<_tide_v1_ListTopicsResponse__Input, _tide_v1_ListTopicsResponse>
      PartitionInfo: MessageTypeDefinition<_tide_v1_PartitionInfo__Input, _tide_v1_PartitionInfo>
      PartitionStatus: MessageTypeDefinition<_tide_v1_PartitionStatus__Input, _tide_v1_PartitionStatus>
      Record: MessageTypeDefinition<_tide_v1_Record__Input, _tide_v1_Record>
      RecordFormat: EnumTypeDefinition
      RecordHeader: MessageTypeDefinition<_tide_v1_RecordHeader__Input, _tide_v1_RecordHeader>
      TopicInfo: MessageTypeDefinition<_tide_v1_TopicInfo__Input, _tide_v1_TopicInfo>
    }
  }
}

