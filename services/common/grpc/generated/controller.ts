import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AlterPartitionRequest__Input as _tide_v1_AlterPartitionRequest__Input, AlterPartitionRequest as _tide_v1_AlterPartitionRequest } from './tide/v1/AlterPartitionRequest';
import type { AlterPartitionResponse__Input as _tide_v1_AlterPartitionResponse__Input, AlterPartitionResponse as _tide_v1_AlterPartitionResponse } from './tide/v1/AlterPartitionResponse';
import type { BrokerInfo__Input as _tide_v1_BrokerInfo__Input, BrokerInfo as _tide_v1_BrokerInfo } from './tide/v1/BrokerInfo';
import type { ControlledShutdownRequest__Input as _tide_v1_ControlledShutdownRequest__Input, ControlledShutdownRequest as _tide_v1_ControlledShutdownRequest } from './tide/v1/ControlledShutdownRequest';
import type { ControlledShutdownResponse__Input as _tide_v1_ControlledShutdownResponse__Input, ControlledShutdownResponse as _tide_v1_ControlledShutdownResponse } from './tide/v1/ControlledShutdownResponse';
import type { ControllerClient as _tide_v1_ControllerClient, ControllerDefinition as _tide_v1_ControllerDefinition } from './tide/v1/Controller';
import type { CreateInternalTopicRequest__Input as _tide_v1_CreateInternalTopicRequest__Input, CreateInternalTopicRequest as _tide_v1_CreateInternalTopicRequest } from './tide/v1/CreateInternalTopicRequest';
import type { CreateInternalTopicResponse__Input as _tide_v1_CreateInternalTopicResponse__Input, CreateInternalTopicResponse as _tide_v1_CreateInternalTopicResponse } from './tide/v1/CreateInternalTopicResponse';
import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from './tide/v1/Error';
import type { PartitionInfo__Input as _tide_v1_PartitionInfo__Input, PartitionInfo as _tide_v1_PartitionInfo } from './tide/v1/PartitionInfo';
import type { PartitionRef__Input as _tide_v1_PartitionRef__Input, PartitionRef as _tide_v1_PartitionRef } from './tide/v1/PartitionRef';
import type { Record__Input as _tide_v1_Record__Input, Record as _tide_v1_Record } from './tide/v1/Record';
import type { RecordHeader__Input as _tide_v1_RecordHeader__Input, RecordHeader as _tide_v1_RecordHeader } from './tide/v1/RecordHeader';
import type { ReportLeaderUnreachableRequest__Input as _tide_v1_ReportLeaderUnreachableRequest__Input, ReportLeaderUnreachableRequest as _tide_v1_ReportLeaderUnreachableRequest } from './tide/v1/ReportLeaderUnreachableRequest';
import type { ReportLeaderUnreachableResponse__Input as _tide_v1_ReportLeaderUnreachableResponse__Input, ReportLeaderUnreachableResponse as _tide_v1_ReportLeaderUnreachableResponse } from './tide/v1/ReportLeaderUnreachableResponse';
import type { ReportReplicaOfflineRequest__Input as _tide_v1_ReportReplicaOfflineRequest__Input, ReportReplicaOfflineRequest as _tide_v1_ReportReplicaOfflineRequest } from './tide/v1/ReportReplicaOfflineRequest';
import type { ReportReplicaOfflineResponse__Input as _tide_v1_ReportReplicaOfflineResponse__Input, ReportReplicaOfflineResponse as _tide_v1_ReportReplicaOfflineResponse } from './tide/v1/ReportReplicaOfflineResponse';
import type { TopicInfo__Input as _tide_v1_TopicInfo__Input, TopicInfo as _tide_v1_TopicInfo } from './tide/v1/TopicInfo';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  tide: {
    v1: {
      Acks: EnumTypeDefinition
      AlterPartitionRequest: MessageTypeDefinition<_tide_v1_AlterPartitionRequest__Input, _tide_v1_AlterPartitionRequest>
      AlterPartitionResponse: MessageTypeDefinition<_tide_v1_AlterPartitionResponse__Input, _tide_v1_AlterPartitionResponse>
      BrokerInfo: MessageTypeDefinition<_tide_v1_BrokerInfo__Input, _tide_v1_BrokerInfo>
      ControlledShutdownRequest: MessageTypeDefinition<_tide_v1_ControlledShutdownRequest__Input, _tide_v1_ControlledShutdownRequest>
      ControlledShutdownResponse: MessageTypeDefinition<_tide_v1_ControlledShutdownResponse__Input, _tide_v1_ControlledShutdownResponse>
      Controller: SubtypeConstructor<typeof grpc.Client, _tide_v1_ControllerClient> & { service: _tide_v1_ControllerDefinition }
      CreateInternalTopicRequest: MessageTypeDefinition<_tide_v1_CreateInternalTopicRequest__Input, _tide_v1_CreateInternalTopicRequest>
      CreateInternalTopicResponse: MessageTypeDefinition<_tide_v1_CreateInternalTopicResponse__Input, _tide_v1_CreateInternalTopicResponse>
      Error: MessageTypeDefinition<_tide_v1_Error__Input, _tide_v1_Error>
      PartitionInfo: MessageTypeDefinition<_tide_v1_PartitionInfo__Input, _tide_v1_PartitionInfo>
      PartitionRef: MessageTypeDefinition<_tide_v1_PartitionRef__Input, _tide_v1_PartitionRef>
      Record: MessageTypeDefinition<_tide_v1_Record__Input, _tide_v1_Record>
      RecordFormat: EnumTypeDefinition
      RecordHeader: MessageTypeDefinition<_tide_v1_RecordHeader__Input, _tide_v1_RecordHeader>
      ReportLeaderUnreachableRequest: MessageTypeDefinition<_tide_v1_ReportLeaderUnreachableRequest__Input, _tide_v1_ReportLeaderUnreachableRequest>
      ReportLeaderUnreachableResponse: MessageTypeDefinition<_tide_v1_ReportLeaderUnreachableResponse__Input, _tide_v1_ReportLeaderUnreachableResponse>
      ReportReplicaOfflineRequest: MessageTypeDefinition<_tide_v1_ReportReplicaOfflineRequest__Input, _tide_v1_ReportReplicaOfflineRequest>
      ReportReplicaOfflineResponse: MessageTypeDefinition<_tide_v1_ReportReplicaOfflineResponse__Input, _tide_v1_ReportReplicaOfflineResponse>
      TopicInfo: MessageTypeDefinition<_tide_v1_TopicInfo__Input, _tide_v1_TopicInfo>
    }
  }
}

