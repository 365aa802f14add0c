import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AclBinding__Input as _tide_v1_AclBinding__Input, AclBinding as _tide_v1_AclBinding } from './tide/v1/AclBinding';
import type { AclFilter__Input as _tide_v1_AclFilter__Input, AclFilter as _tide_v1_AclFilter } from './tide/v1/AclFilter';
import type { AdminClient as _tide_v1_AdminClient, AdminDefinition as _tide_v1_AdminDefinition } from './tide/v1/Admin';
import type { AlterClientQuotasRequest__Input as _tide_v1_AlterClientQuotasRequest__Input, AlterClientQuotasRequest as _tide_v1_AlterClientQuotasRequest } from './tide/v1/AlterClientQuotasRequest';
import type { AlterClientQuotasResponse__Input as _tide_v1_AlterClientQuotasResponse__Input, AlterClientQuotasResponse as _tide_v1_AlterClientQuotasResponse } from './tide/v1/AlterClientQuotasResponse';
import type { AlterConfigsRequest__Input as _tide_v1_AlterConfigsRequest__Input, AlterConfigsRequest as _tide_v1_AlterConfigsRequest } from './tide/v1/AlterConfigsRequest';
import type { AlterConfigsResponse__Input as _tide_v1_AlterConfigsResponse__Input, AlterConfigsResponse as _tide_v1_AlterConfigsResponse } from './tide/v1/AlterConfigsResponse';
import type { AlterPartitionReassignmentsRequest__Input as _tide_v1_AlterPartitionReassignmentsRequest__Input, AlterPartitionReassignmentsRequest as _tide_v1_AlterPartitionReassignmentsRequest } from './tide/v1/AlterPartitionReassignmentsRequest';
import type { AlterPartitionReassignmentsResponse__Input as _tide_v1_AlterPartitionReassignmentsResponse__Input, AlterPartitionReassignmentsResponse as _tide_v1_AlterPartitionReassignmentsResponse } from './tide/v1/AlterPartitionReassignmentsResponse';
import type { BrokerInfo__Input as _tide_v1_BrokerInfo__Input, BrokerInfo as _tide_v1_BrokerInfo } from './tide/v1/BrokerInfo';
import type { ClientQuota__Input as _tide_v1_ClientQuota__Input, ClientQuota as _tide_v1_ClientQuota } from './tide/v1/ClientQuota';
import type { ConfigEntry__Input as _tide_v1_ConfigEntry__Input, ConfigEntry as _tide_v1_ConfigEntry } from './tide/v1/ConfigEntry';
import type { CreateAclsRequest__Input as _tide_v1_CreateAclsRequest__Input, CreateAclsRequest as _tide_v1_CreateAclsRequest } from './tide/v1/CreateAclsRequest';
import type { CreateAclsResponse__Input as _tide_v1_CreateAclsResponse__Input, CreateAclsResponse as _tide_v1_CreateAclsResponse } from './tide/v1/CreateAclsResponse';
import type { CreatePartitionsRequest__Input as _tide_v1_CreatePartitionsRequest__Input, CreatePartitionsRequest as _tide_v1_CreatePartitionsRequest } from './tide/v1/CreatePartitionsRequest';
import type { CreatePartitionsResponse__Input as _tide_v1_CreatePartitionsResponse__Input, CreatePartitionsResponse as _tide_v1_CreatePartitionsResponse } from './tide/v1/CreatePartitionsResponse';
import type { CreateTopicRequest__Input as _tide_v1_CreateTopicRequest__Input, CreateTopicRequest as _tide_v1_CreateTopicRequest } from './tide/v1/CreateTopicRequest';
import type { CreateTopicResponse__Input as _tide_v1_CreateTopicResponse__Input, CreateTopicResponse as _tide_v1_CreateTopicResponse } from './tide/v1/CreateTopicResponse';
import type { DecommissionBrokerRequest__Input as _tide_v1_DecommissionBrokerRequest__Input, DecommissionBrokerRequest as _tide_v1_DecommissionBrokerRequest } from './tide/v1/DecommissionBrokerRequest';
import type { DecommissionStatus__Input as _tide_v1_DecommissionStatus__Input, DecommissionStatus as _tide_v1_DecommissionStatus } from './tide/v1/DecommissionStatus';
import type { DeleteAclsRequest__Input as _tide_v1_DeleteAclsRequest__Input, DeleteAclsRequest as _tide_v1_DeleteAclsRequest } from './tide/v1/DeleteAclsRequest';
import type { DeleteAclsResponse__Input as _tide_v1_DeleteAclsResponse__Input, DeleteAclsResponse as _tide_v1_DeleteAclsResponse } from './tide/v1/DeleteAclsResponse';
import type { DeleteRecordsRequest__Input as _tide_v1_DeleteRecordsRequest__Input, DeleteRecordsRequest as _tide_v1_DeleteRecordsRequest } from './tide/v1/DeleteRecordsRequest';
import type { DeleteRecordsResponse__Input as _tide_v1_DeleteRecordsResponse__Input, DeleteRecordsResponse as _tide_v1_DeleteRecordsResponse } from './tide/v1/DeleteRecordsResponse';
import type { DeleteTopicRequest__Input as _tide_v1_DeleteTopicRequest__Input, DeleteTopicRequest as _tide_v1_DeleteTopicRequest } from './tide/v1/DeleteTopicRequest';
import type { DeleteTopicResponse__Input as _tide_v1_DeleteTopicResponse__Input, DeleteTopicResponse as _tide_v1_DeleteTopicResponse } from './tide/v1/DeleteTopicResponse';
import type { DescribeAclsRequest__Input as _tide_v1_DescribeAclsRequest__Input, DescribeAclsRequest as _tide_v1_DescribeAclsRequest } from './tide/v1/DescribeAclsRequest';
import type { DescribeAclsResponse__Input as _tide_v1_DescribeAclsResponse__Input, DescribeAclsResponse as _tide_v1_DescribeAclsResponse } from './tide/v1/DescribeAclsResponse';
import type { DescribeClientQuotasRequest__Input as _tide_v1_DescribeClientQuotasRequest__Input, DescribeClientQuotasRequest as _tide_v1_DescribeClientQuotasRequest } from './tide/v1/DescribeClientQuotasRequest';
import type { DescribeClientQuotasResponse__Input as _tide_v1_DescribeClientQuotasResponse__Input, DescribeClientQuotasResponse as _tide_v1_DescribeClientQuotasResponse } from './tide/v1/DescribeClientQuotasResponse';
import type { DescribeClusterRequest__Input as _tide_v1_DescribeClusterRequest__Input, DescribeClusterRequest as _tide_v1_DescribeClusterRequest } from './tide/v1/DescribeClusterRequest';
import type { DescribeClusterResponse__Input as _tide_v1_DescribeClusterResponse__Input, DescribeClusterResponse as _tide_v1_DescribeClusterResponse } from './tide/v1/DescribeClusterResponse';
import type { DescribeConfigsRequest__Input as _tide_v1_DescribeConfigsRequest__Input, DescribeConfigsRequest as _tide_v1_DescribeConfigsRequest } from './tide/v1/DescribeConfigsRequest';
import type { DescribeConfigsResponse__Input as _tide_v1_DescribeConfigsResponse__Input, DescribeConfigsResponse as _tide_v1_DescribeConfigsResponse } from './tide/v1/DescribeConfigsResponse';
import type { DescribeTopicRequest__Input as _tide_v1_DescribeTopicRequest__Input, DescribeTopicRequest as _tide_v1_DescribeTopicRequest } from './tide/v1/DescribeTopicRequest';
import type { DescribeTopicResponse__Input as _tide_v1_DescribeTopicResponse__Input, DescribeTopicResponse as _tide_v1_DescribeTopicResponse } from './tide/v1/DescribeTopicResponse';
import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from './tide/v1/Error';
import type { ListPartitionReassignmentsRequest__Input as _tide_v1_ListPartitionReassignmentsRequest__Input, ListPartitionReassignmentsRequest as _tide_v1_ListPartitionReassignmentsRequest } from './tide/v1/ListPartitionReassignmentsRequest';
import type { ListPartitionReassignmentsResponse__Input as _tide_v1_ListPartitionReassignmentsResponse__Input, ListPartitionReassignmentsResponse as _tide_v1_ListPartitionReassignmentsResponse } from './tide/v1/ListPartitionReassignmentsResponse';
import type { ListTopicsRequest__Input as _tide_v1_ListTopicsRequest__Input, ListTopicsRequest as _tide_v1_ListTopicsRequest } from './tide/v1/ListTopicsRequest';
import type { ListTopicsResponse__Input as _tide_v1_ListTopicsResponse__Input, ListTopicsResponse as _tide_v1_ListTopicsResponse } from './tide/v1/ListTopicsResponse';
import type { OngoingReassignment__Input as _tide_v1_OngoingReassignment__Input, OngoingReassignment as _tide_v1_OngoingReassignment } from './tide/v1/OngoingReassignment';
import type { PartitionInfo__Input as _tide_v1_PartitionInfo__Input, PartitionInfo as _tide_v1_PartitionInfo } from './tide/v1/PartitionInfo';
import type { PartitionReassignment__Input as _tide_v1_PartitionReassignment__Input, PartitionReassignment as _tide_v1_PartitionReassignment } from './tide/v1/PartitionReassignment';
import type { PartitionStatus__Input as _tide_v1_PartitionStatus__Input, PartitionStatus as _tide_v1_PartitionStatus } from './tide/v1/PartitionStatus';
import type { QuotaAlteration__Input as _tide_v1_QuotaAlteration__Input, QuotaAlteration as _tide_v1_QuotaAlteration } from './tide/v1/QuotaAlteration';
import type { QuotaEntity__Input as _tide_v1_QuotaEntity__Input, QuotaEntity as _tide_v1_QuotaEntity } from './tide/v1/QuotaEntity';
import type { QuotaValue__Input as _tide_v1_QuotaValue__Input, QuotaValue as _tide_v1_QuotaValue } from './tide/v1/QuotaValue';
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
      AclBinding: MessageTypeDefinition<_tide_v1_AclBinding__Input, _tide_v1_AclBinding>
      AclFilter: MessageTypeDefinition<_tide_v1_AclFilter__Input, _tide_v1_AclFilter>
      Admin: SubtypeConstructor<typeof grpc.Client, _tide_v1_AdminClient> & { service: _tide_v1_AdminDefinition }
      AlterClientQuotasRequest: MessageTypeDefinition<_tide_v1_AlterClientQuotasRequest__Input, _tide_v1_AlterClientQuotasRequest>
      AlterClientQuotasResponse: MessageTypeDefinition<_tide_v1_AlterClientQuotasResponse__Input, _tide_v1_AlterClientQuotasResponse>
      AlterConfigsRequest: MessageTypeDefinition<_tide_v1_AlterConfigsRequest__Input, _tide_v1_AlterConfigsRequest>
      AlterConfigsResponse: MessageTypeDefinition<_tide_v1_AlterConfigsResponse__Input, _tide_v1_AlterConfigsResponse>
      AlterPartitionReassignmentsRequest: MessageTypeDefinition<_tide_v1_AlterPartitionReassignmentsRequest__Input, _tide_v1_AlterPartitionReassignmentsRequest>
      AlterPartitionReassignmentsResponse: MessageTypeDefinition<_tide_v1_AlterPartitionReassignmentsResponse__Input, _tide_v1_AlterPartitionReassignmentsResponse>
      BrokerInfo: MessageTypeDefinition<_tide_v1_BrokerInfo__Input, _tide_v1_BrokerInfo>
      ClientQuota: MessageTypeDefinition<_tide_v1_ClientQuota__Input, _tide_v1_ClientQuota>
      ConfigEntry: MessageTypeDefinition<_tide_v1_ConfigEntry__Input, _tide_v1_ConfigEntry>
      CreateAclsRequest: MessageTypeDefinition<_tide_v1_CreateAclsRequest__Input, _tide_v1_CreateAclsRequest>
      CreateAclsResponse: MessageTypeDefinition<_tide_v1_CreateAclsResponse__Input, _tide_v1_CreateAclsResponse>
      CreatePartitionsRequest: MessageTypeDefinition<_tide_v1_CreatePartitionsRequest__Input, _tide_v1_CreatePartitionsRequest>
      CreatePartitionsResponse: MessageTypeDefinition<_tide_v1_CreatePartitionsResponse__Input, _tide_v1_CreatePartitionsResponse>
      CreateTopicRequest: MessageTypeDefinition<_tide_v1_CreateTopicRequest__Input, _tide_v1_CreateTopicRequest>
      CreateTopicResponse: MessageTypeDefinition<_tide_v1_CreateTopicResponse__Input, _tide_v1_CreateTopicResponse>
      DecommissionBrokerRequest: MessageTypeDefinition<_tide_v1_DecommissionBrokerRequest__Input, _tide_v1_DecommissionBrokerRequest>
      DecommissionStatus: MessageTypeDefinition<_tide_v1_DecommissionStatus__Input, _tide_v1_DecommissionStatus>
      DeleteAclsRequest: MessageTypeDefinition<_tide_v1_DeleteAclsRequest__Input, _tide_v1_DeleteAclsRequest>
      DeleteAclsResponse: MessageTypeDefinition<_tide_v1_DeleteAclsResponse__Input, _tide_v1_DeleteAclsResponse>
      DeleteRecordsRequest: MessageTypeDefinition<_tide_v1_DeleteRecordsRequest__Input, _tide_v1_DeleteRecordsRequest>
      DeleteRecordsResponse: MessageTypeDefinition<_tide_v1_DeleteRecordsResponse__Input, _tide_v1_DeleteRecordsResponse>
      DeleteTopicRequest: MessageTypeDefinition<_tide_v1_DeleteTopicRequest__Input, _tide_v1_DeleteTopicRequest>
      DeleteTopicResponse: MessageTypeDefinition<_tide_v1_DeleteTopicResponse__Input, _tide_v1_DeleteTopicResponse>
      DescribeAclsRequest: MessageTypeDefinition<_tide_v1_DescribeAclsRequest__Input, _tide_v1_DescribeAclsRequest>
      DescribeAclsResponse: MessageTypeDefinition<_tide_v1_DescribeAclsResponse__Input, _tide_v1_DescribeAclsResponse>
      DescribeClientQuotasRequest: MessageTypeDefinition<_tide_v1_DescribeClientQuotasRequest__Input, _tide_v1_DescribeClientQuotasRequest>
      DescribeClientQuotasResponse: MessageTypeDefinition<_tide_v1_DescribeClientQuotasResponse__Input, _tide_v1_DescribeClientQuotasResponse>
      DescribeClusterRequest: MessageTypeDefinition<_tide_v1_DescribeClusterRequest__Input, _tide_v1_DescribeClusterRequest>
      DescribeClusterResponse: MessageTypeDefinition<_tide_v1_DescribeClusterResponse__Input, _tide_v1_DescribeClusterResponse>
      DescribeConfigsRequest: MessageTypeDefinition<_tide_v1_DescribeConfigsRequest__Input, _tide_v1_DescribeConfigsRequest>
      DescribeConfigsResponse: MessageTypeDefinition<_tide_v1_DescribeConfigsResponse__Input, _tide_v1_DescribeConfigsResponse>
      DescribeTopicRequest: MessageTypeDefinition<_tide_v1_DescribeTopicRequest__Input, _tide_v1_DescribeTopicRequest>
      DescribeTopicResponse: MessageTypeDefinition<_tide_v1_DescribeTopicResponse__Input, _tide_v1_DescribeTopicResponse>
      Error: MessageTypeDefinition<_tide_v1_Error__Input, _tide_v1_Error>
      ListPartitionReassignmentsRequest: MessageTypeDefinition<_tide_v1_ListPartitionReassignmentsRequest__Input, _tide_v1_ListPartitionReassignmentsRequest>
      ListPartitionReassignmentsResponse: MessageTypeDefinition<_tide_v1_ListPartitionReassignmentsResponse__Input, _tide_v1_ListPartitionReassignmentsResponse>
      ListTopicsRequest: MessageTypeDefinition<_tide_v1_ListTopicsRequest__Input, _tide_v1_ListTopicsRequest>
      ListTopicsResponse: MessageTypeDefinition<_tide_v1_ListTopicsResponse__Input, _tide_v1_ListTopicsResponse>
      OngoingReassignment: MessageTypeDefinition<_tide_v1_OngoingReassignment__Input, _tide_v1_OngoingReassignment>
      PartitionInfo: MessageTypeDefinition<_tide_v1_PartitionInfo__Input, _tide_v1_PartitionInfo>
      PartitionReassignment: MessageTypeDefinition<_tide_v1_PartitionReassignment__Input, _tide_v1_PartitionReassignment>
      PartitionStatus: MessageTypeDefinition<_tide_v1_PartitionStatus__Input, _tide_v1_PartitionStatus>
      QuotaAlteration: MessageTypeDefinition<_tide_v1_QuotaAlteration__Input, _tide_v1_QuotaAlteration>
      QuotaEntity: MessageTypeDefinition<_tide_v1_QuotaEntity__Input, _tide_v1_QuotaEntity>
      QuotaValue: MessageTypeDefinition<_tide_v1_QuotaValue__Input, _tide_v1_QuotaValue>
      Record: MessageTypeDefinition<_tide_v1_Record__Input, _tide_v1_Record>
      RecordFormat: EnumTypeDefinition
      RecordHeader: MessageTypeDefinition<_tide_v1_RecordHeader__Input, _tide_v1_RecordHeader>
      TopicInfo: MessageTypeDefinition<_tide_v1_TopicInfo__Input, _tide_v1_TopicInfo>
    }
  }
}

