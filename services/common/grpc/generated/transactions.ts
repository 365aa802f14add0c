import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AddOffsetsToTxnRequest__Input as _tide_v1_AddOffsetsToTxnRequest__Input, AddOffsetsToTxnRequest as _tide_v1_AddOffsetsToTxnRequest } from './tide/v1/AddOffsetsToTxnRequest';
import type { AddOffsetsToTxnResponse__Input as _tide_v1_AddOffsetsToTxnResponse__Input, AddOffsetsToTxnResponse as _tide_v1_AddOffsetsToTxnResponse } from './tide/v1/AddOffsetsToTxnResponse';
import type { AddPartitionsToTxnRequest__Input as _tide_v1_AddPartitionsToTxnRequest__Input, AddPartitionsToTxnRequest as _tide_v1_AddPartitionsToTxnRequest } from './tide/v1/AddPartitionsToTxnRequest';
import type { AddPartitionsToTxnResponse__Input as _tide_v1_AddPartitionsToTxnResponse__Input, AddPartitionsToTxnResponse as _tide_v1_AddPartitionsToTxnResponse } from './tide/v1/AddPartitionsToTxnResponse';
import type { Assignment__Input as _tide_v1_Assignment__Input, Assignment as _tide_v1_Assignment } from './tide/v1/Assignment';
import type { AssignmentResult__Input as _tide_v1_AssignmentResult__Input, AssignmentResult as _tide_v1_AssignmentResult } from './tide/v1/AssignmentResult';
import type { AssignorMember__Input as _tide_v1_AssignorMember__Input, AssignorMember as _tide_v1_AssignorMember } from './tide/v1/AssignorMember';
import type { BrokerInfo__Input as _tide_v1_BrokerInfo__Input, BrokerInfo as _tide_v1_BrokerInfo } from './tide/v1/BrokerInfo';
import type { CommitOffsetsRequest__Input as _tide_v1_CommitOffsetsRequest__Input, CommitOffsetsRequest as _tide_v1_CommitOffsetsRequest } from './tide/v1/CommitOffsetsRequest';
import type { CommitOffsetsResponse__Input as _tide_v1_CommitOffsetsResponse__Input, CommitOffsetsResponse as _tide_v1_CommitOffsetsResponse } from './tide/v1/CommitOffsetsResponse';
import type { CommittedOffset__Input as _tide_v1_CommittedOffset__Input, CommittedOffset as _tide_v1_CommittedOffset } from './tide/v1/CommittedOffset';
import type { ComputeAssignment__Input as _tide_v1_ComputeAssignment__Input, ComputeAssignment as _tide_v1_ComputeAssignment } from './tide/v1/ComputeAssignment';
import type { CoordinatorInfo__Input as _tide_v1_CoordinatorInfo__Input, CoordinatorInfo as _tide_v1_CoordinatorInfo } from './tide/v1/CoordinatorInfo';
import type { DeleteGroupRequest__Input as _tide_v1_DeleteGroupRequest__Input, DeleteGroupRequest as _tide_v1_DeleteGroupRequest } from './tide/v1/DeleteGroupRequest';
import type { DeleteGroupResponse__Input as _tide_v1_DeleteGroupResponse__Input, DeleteGroupResponse as _tide_v1_DeleteGroupResponse } from './tide/v1/DeleteGroupResponse';
import type { DescribeCoordinatorsRequest__Input as _tide_v1_DescribeCoordinatorsRequest__Input, DescribeCoordinatorsRequest as _tide_v1_DescribeCoordinatorsRequest } from './tide/v1/DescribeCoordinatorsRequest';
import type { DescribeCoordinatorsResponse__Input as _tide_v1_DescribeCoordinatorsResponse__Input, DescribeCoordinatorsResponse as _tide_v1_DescribeCoordinatorsResponse } from './tide/v1/DescribeCoordinatorsResponse';
import type { DescribeGroupRequest__Input as _tide_v1_DescribeGroupRequest__Input, DescribeGroupRequest as _tide_v1_DescribeGroupRequest } from './tide/v1/DescribeGroupRequest';
import type { DescribeGroupResponse__Input as _tide_v1_DescribeGroupResponse__Input, DescribeGroupResponse as _tide_v1_DescribeGroupResponse } from './tide/v1/DescribeGroupResponse';
import type { DescribeTransactionRequest__Input as _tide_v1_DescribeTransactionRequest__Input, DescribeTransactionRequest as _tide_v1_DescribeTransactionRequest } from './tide/v1/DescribeTransactionRequest';
import type { DescribeTransactionResponse__Input as _tide_v1_DescribeTransactionResponse__Input, DescribeTransactionResponse as _tide_v1_DescribeTransactionResponse } from './tide/v1/DescribeTransactionResponse';
import type { EndTxnRequest__Input as _tide_v1_EndTxnRequest__Input, EndTxnRequest as _tide_v1_EndTxnRequest } from './tide/v1/EndTxnRequest';
import type { EndTxnResponse__Input as _tide_v1_EndTxnResponse__Input, EndTxnResponse as _tide_v1_EndTxnResponse } from './tide/v1/EndTxnResponse';
import type { EndTxnStreamRequest__Input as _tide_v1_EndTxnStreamRequest__Input, EndTxnStreamRequest as _tide_v1_EndTxnStreamRequest } from './tide/v1/EndTxnStreamRequest';
import type { EndTxnStreamResponse__Input as _tide_v1_EndTxnStreamResponse__Input, EndTxnStreamResponse as _tide_v1_EndTxnStreamResponse } from './tide/v1/EndTxnStreamResponse';
import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from './tide/v1/Error';
import type { FetchOffsetsRequest__Input as _tide_v1_FetchOffsetsRequest__Input, FetchOffsetsRequest as _tide_v1_FetchOffsetsRequest } from './tide/v1/FetchOffsetsRequest';
import type { FetchOffsetsResponse__Input as _tide_v1_FetchOffsetsResponse__Input, FetchOffsetsResponse as _tide_v1_FetchOffsetsResponse } from './tide/v1/FetchOffsetsResponse';
import type { FindCoordinatorRequest__Input as _tide_v1_FindCoordinatorRequest__Input, FindCoordinatorRequest as _tide_v1_FindCoordinatorRequest } from './tide/v1/FindCoordinatorRequest';
import type { FindCoordinatorResponse__Input as _tide_v1_FindCoordinatorResponse__Input, FindCoordinatorResponse as _tide_v1_FindCoordinatorResponse } from './tide/v1/FindCoordinatorResponse';
import type { FindTransactionCoordinatorRequest__Input as _tide_v1_FindTransactionCoordinatorRequest__Input, FindTransactionCoordinatorRequest as _tide_v1_FindTransactionCoordinatorRequest } from './tide/v1/FindTransactionCoordinatorRequest';
import type { GroupCoordinatorClient as _tide_v1_GroupCoordinatorClient, GroupCoordinatorDefinition as _tide_v1_GroupCoordinatorDefinition } from './tide/v1/GroupCoordinator';
import type { GroupListing__Input as _tide_v1_GroupListing__Input, GroupListing as _tide_v1_GroupListing } from './tide/v1/GroupListing';
import type { Heartbeat__Input as _tide_v1_Heartbeat__Input, Heartbeat as _tide_v1_Heartbeat } from './tide/v1/Heartbeat';
import type { HeartbeatAck__Input as _tide_v1_HeartbeatAck__Input, HeartbeatAck as _tide_v1_HeartbeatAck } from './tide/v1/HeartbeatAck';
import type { InitTransactionsRequest__Input as _tide_v1_InitTransactionsRequest__Input, InitTransactionsRequest as _tide_v1_InitTransactionsRequest } from './tide/v1/InitTransactionsRequest';
import type { InitTransactionsResponse__Input as _tide_v1_InitTransactionsResponse__Input, InitTransactionsResponse as _tide_v1_InitTransactionsResponse } from './tide/v1/InitTransactionsResponse';
import type { JoinGroup__Input as _tide_v1_JoinGroup__Input, JoinGroup as _tide_v1_JoinGroup } from './tide/v1/JoinGroup';
import type { Joined__Input as _tide_v1_Joined__Input, Joined as _tide_v1_Joined } from './tide/v1/Joined';
import type { LeaveGroup__Input as _tide_v1_LeaveGroup__Input, LeaveGroup as _tide_v1_LeaveGroup } from './tide/v1/LeaveGroup';
import type { ListGroupsRequest__Input as _tide_v1_ListGroupsRequest__Input, ListGroupsRequest as _tide_v1_ListGroupsRequest } from './tide/v1/ListGroupsRequest';
import type { ListGroupsResponse__Input as _tide_v1_ListGroupsResponse__Input, ListGroupsResponse as _tide_v1_ListGroupsResponse } from './tide/v1/ListGroupsResponse';
import type { ListTransactionsRequest__Input as _tide_v1_ListTransactionsRequest__Input, ListTransactionsRequest as _tide_v1_ListTransactionsRequest } from './tide/v1/ListTransactionsRequest';
import type { ListTransactionsResponse__Input as _tide_v1_ListTransactionsResponse__Input, ListTransactionsResponse as _tide_v1_ListTransactionsResponse } from './tide/v1/ListTransactionsResponse';
import type { MemberDescription__Input as _tide_v1_MemberDescription__Input, MemberDescription as _tide_v1_MemberDescription } from './tide/v1/MemberDescription';
import type { MemberRequest__Input as _tide_v1_MemberRequest__Input, MemberRequest as _tide_v1_MemberRequest } from './tide/v1/MemberRequest';
import type { MemberResponse__Input as _tide_v1_MemberResponse__Input, MemberResponse as _tide_v1_MemberResponse } from './tide/v1/MemberResponse';
import type { MemberTarget__Input as _tide_v1_MemberTarget__Input, MemberTarget as _tide_v1_MemberTarget } from './tide/v1/MemberTarget';
import type { PartitionInfo__Input as _tide_v1_PartitionInfo__Input, PartitionInfo as _tide_v1_PartitionInfo } from './tide/v1/PartitionInfo';
import type { PartitionLag__Input as _tide_v1_PartitionLag__Input, PartitionLag as _tide_v1_PartitionLag } from './tide/v1/PartitionLag';
import type { PartitionOffset__Input as _tide_v1_PartitionOffset__Input, PartitionOffset as _tide_v1_PartitionOffset } from './tide/v1/PartitionOffset';
import type { Record__Input as _tide_v1_Record__Input, Record as _tide_v1_Record } from './tide/v1/Record';
import type { RecordHeader__Input as _tide_v1_RecordHeader__Input, RecordHeader as _tide_v1_RecordHeader } from './tide/v1/RecordHeader';
import type { ResetOffsetsRequest__Input as _tide_v1_ResetOffsetsRequest__Input, ResetOffsetsRequest as _tide_v1_ResetOffsetsRequest } from './tide/v1/ResetOffsetsRequest';
import type { ResetOffsetsResponse__Input as _tide_v1_ResetOffsetsResponse__Input, ResetOffsetsResponse as _tide_v1_ResetOffsetsResponse } from './tide/v1/ResetOffsetsResponse';
import type { ResetPlanEntry__Input as _tide_v1_ResetPlanEntry__Input, ResetPlanEntry as _tide_v1_ResetPlanEntry } from './tide/v1/ResetPlanEntry';
import type { RevocationAck__Input as _tide_v1_RevocationAck__Input, RevocationAck as _tide_v1_RevocationAck } from './tide/v1/RevocationAck';
import type { Revoke__Input as _tide_v1_Revoke__Input, Revoke as _tide_v1_Revoke } from './tide/v1/Revoke';
import type { ShardOwner__Input as _tide_v1_ShardOwner__Input, ShardOwner as _tide_v1_ShardOwner } from './tide/v1/ShardOwner';
import type { TopicInfo__Input as _tide_v1_TopicInfo__Input, TopicInfo as _tide_v1_TopicInfo } from './tide/v1/TopicInfo';
import type { TopicPartitionCount__Input as _tide_v1_TopicPartitionCount__Input, TopicPartitionCount as _tide_v1_TopicPartitionCount } from './tide/v1/TopicPartitionCount';
import type { TopicPartitions__Input as _tide_v1_TopicPartitions__Input, TopicPartitions as _tide_v1_TopicPartitions } from './tide/v1/TopicPartitions';
import type { TransactionCoordinatorClient as _tide_v1_TransactionCoordinatorClient, TransactionCoordinatorDefinition as _tide_v1_TransactionCoordinatorDefinition } from './tide/v1/TransactionCoordinator';
import type { TransactionDescription__Input as _tide_v1_TransactionDescription__Input, TransactionDescription as _tide_v1_TransactionDescription } from './tide/v1/TransactionDescription';
import type { TransactionListing__Input as _tide_v1_TransactionListing__Input, TransactionListing as _tide_v1_TransactionListing } from './tide/v1/TransactionListing';
import type { TxnOffset__Input as _tide_v1_TxnOffset__Input, TxnOffset as _tide_v1_TxnOffset } from './tide/v1/TxnOffset';
import type { TxnOffsetCommitRequest__Input as _tide_v1_TxnOffsetCommitRequest__Input, TxnOffsetCommitRequest as _tide_v1_TxnOffsetCommitRequest } from './tide/v1/TxnOffsetCommitRequest';
import type { TxnOffsetCommitResponse__Input as _tide_v1_TxnOffsetCommitResponse__Input, TxnOffsetCommitResponse as _tide_v1_TxnOffsetCommitResponse } from './tide/v1/TxnOffsetCommitResponse';
import type { UserDataUpdate__Input as _tide_v1_UserDataUpdate__Input, UserDataUpdate as _tide_v1_UserDataUpdate } from './tide/v1/UserDataUpdate';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  tide: {
    v1: {
      Acks: EnumTypeDefinition
      AddOffsetsToTxnRequest: MessageTypeDefinition<_tide_v1_AddOffsetsToTxnRequest__Input, _tide_v1_AddOffsetsToTxnRequest>
      AddOffsetsToTxnResponse: MessageTypeDefinition<_tide_v1_AddOffsetsToTxnResponse__Input, _tide_v1_AddOffsetsToTxnResponse>
      AddPartitionsToTxnRequest: MessageTypeDefinition<_tide_v1_AddPartitionsToTxnRequest__Input, _tide_v1_AddPartitionsToTxnRequest>
      AddPartitionsToTxnResponse: MessageTypeDefinition<_tide_v1_AddPartitionsToTxnResponse__Input, _tide_v1_AddPartitionsToTxnResponse>
      Assignment: MessageTypeDefinition<_tide_v1_Assignment__Input, _tide_v1_Assignment>
      AssignmentResult: MessageTypeDefinition<_tide_v1_AssignmentResult__Input, _tide_v1_AssignmentResult>
      AssignorMember: MessageTypeDefinition<_tide_v1_AssignorMember__Input, _tide_v1_AssignorMember>
      BrokerInfo: MessageTypeDefinition<_tide_v1_BrokerInfo__Input, _tide_v1_BrokerInfo>
      CommitOffsetsRequest: MessageTypeDefinition<_tide_v1_CommitOffsetsRequest__Input, _tide_v1_CommitOffsetsRequest>
      CommitOffsetsResponse: MessageTypeDefinition<_tide_v1_CommitOffsetsResponse__Input, _tide_v1_CommitOffsetsResponse>
      CommittedOffset: MessageTypeDefinition<_tide_v1_CommittedOffset__Input, _tide_v1_CommittedOffset>
      ComputeAssignment: MessageTypeDefinition<_tide_v1_ComputeAssignment__Input, _tide_v1_ComputeAssignment>
      CoordinatorInfo: MessageTypeDefinition<_tide_v1_CoordinatorInfo__Input, _tide_v1_CoordinatorInfo>
      DeleteGroupRequest: MessageTypeDefinition<_tide_v1_DeleteGroupRequest__Input, _tide_v1_DeleteGroupRequest>
      DeleteGroupResponse: MessageTypeDefinition<_tide_v1_DeleteGroupResponse__Input, _tide_v1_DeleteGroupResponse>
      DescribeCoordinatorsRequest: MessageTypeDefinition<_tide_v1_DescribeCoordinatorsRequest__Input, _tide_v1_DescribeCoordinatorsRequest>
      DescribeCoordinatorsResponse: MessageTypeDefinition<_tide_v1_DescribeCoordinatorsResponse__Input, _tide_v1_DescribeCoordinatorsResponse>
      DescribeGroupRequest: MessageTypeDefinition<_tide_v1_DescribeGroupRequest__Input, _tide_v1_DescribeGroupRequest>
      DescribeGroupResponse: MessageTypeDefinition<_tide_v1_DescribeGroupResponse__Input, _tide_v1_DescribeGroupResponse>
      DescribeTransactionRequest: MessageTypeDefinition<_tide_v1_DescribeTransactionRequest__Input, _tide_v1_DescribeTransactionRequest>
      DescribeTransactionResponse: MessageTypeDefinition<_tide_v1_DescribeTransactionResponse__Input, _tide_v1_DescribeTransactionResponse>
      EndTxnRequest: MessageTypeDefinition<_tide_v1_EndTxnRequest__Input, _tide_v1_EndTxnRequest>
      EndTxnResponse: MessageTypeDefinition<_tide_v1_EndTxnResponse__Input, _tide_v1_EndTxnResponse>
      EndTxnStreamRequest: MessageTypeDefinition<_tide_v1_EndTxnStreamRequest__Input, _tide_v1_EndTxnStreamRequest>
      EndTxnStreamResponse: MessageTypeDefinition<_tide_v1_EndTxnStreamResponse__Input, _tide_v1_EndTxnStreamResponse>
      Error: MessageTypeDefinition<_tide_v1_Error__Input, _tide_v1_Error>
      FetchOffsetsRequest: MessageTypeDefinition<_tide_v1_FetchOffsetsRequest__Input, _tide_v1_FetchOffsetsRequest>
      FetchOffsetsResponse: MessageTypeDefinition<_tide_v1_FetchOffsetsResponse__Input, _tide_v1_FetchOffsetsResponse>
      FindCoordinatorRequest: MessageTypeDefinition<_tide_v1_FindCoordinatorRequest__Input, _tide_v1_FindCoordinatorRequest>
      FindCoordinatorResponse: MessageTypeDefinition<_tide_v1_FindCoordinatorResponse__Input, _tide_v1_FindCoordinatorResponse>
      FindTransactionCoordinatorRequest: MessageTypeDefinition<_tide_v1_FindTransactionCoordinatorRequest__Input, _tide_v1_FindTransactionCoordinatorRequest>
      GroupCoordinator: SubtypeConstructor<typeof grpc.Client, _tide_v1_GroupCoordinatorClient> & { service: _tide_v1_GroupCoordinatorDefinition }
      GroupListing: MessageTypeDefinition<_tide_v1_GroupListing__Input, _tide_v1_GroupListing>
      Heartbeat: MessageTypeDefinition<_tide_v1_Heartbeat__Input, _tide_v1_Heartbeat>
      HeartbeatAck: MessageTypeDefinition<_tide_v1_HeartbeatAck__Input, _tide_v1_HeartbeatAck>
      InitTransactionsRequest: MessageTypeDefinition<_tide_v1_InitTransactionsRequest__Input, _tide_v1_InitTransactionsRequest>
      InitTransactionsResponse: MessageTypeDefinition<_tide_v1_InitTransactionsResponse__Input, _tide_v1_InitTransactionsResponse>
      JoinGroup: MessageTypeDefinition<_tide_v1_JoinGroup__Input, _tide_v1_JoinGroup>
      Joined: MessageTypeDefinition<_tide_v1_Joined__Input, _tide_v1_Joined>
      LeaveGroup: MessageTypeDefinition<_tide_v1_LeaveGroup__Input, _tide_v1_LeaveGroup>
      ListGroupsRequest: MessageTypeDefinition<_tide_v1_ListGroupsRequest__Input, _tide_v1_ListGroupsRequest>
      ListGroupsResponse: MessageTypeDefinition<_tide_v1_ListGroupsResponse__Input, _tide_v1_ListGroupsResponse>
      ListTransactionsRequest: MessageTypeDefinition<_tide_v1_ListTransactionsRequest__Input, _tide_v1_ListTransactionsRequest>
      ListTransactionsResponse: MessageTypeDefinition<_tide_v1_ListTransactionsResponse__Input, _tide_v1_ListTransactionsResponse>
      MemberDescription: MessageTypeDefinition<_tide_v1_MemberDescription__Input, _tide_v1_MemberDescription>
      MemberRequest: MessageTypeDefinition<_tide_v1_MemberRequest__Input, _tide_v1_MemberRequest>
      MemberResponse: MessageTypeDefinition<_tide_v1_MemberResponse__Input, _tide_v1_MemberResponse>
      MemberTarget: MessageTypeDefinition<_tide_v1_MemberTarget__Input, _tide_v1_MemberTarget>
      PartitionInfo: MessageTypeDefinition<_tide_v1_PartitionInfo__Input, _tide_v1_PartitionInfo>
      PartitionLag: MessageTypeDefinition<_tide_v1_PartitionLag__Input, _tide_v1_PartitionLag>
      PartitionOffset: MessageTypeDefinition<_tide_v1_PartitionOffset__Input, _tide_v1_PartitionOffset>
      Record: MessageTypeDefinition<_tide_v1_Record__Input, _tide_v1_Record>
      RecordFormat: EnumTypeDefinition
      RecordHeader: MessageTypeDefinition<_tide_v1_RecordHeader__Input, _tide_v1_RecordHeader>
      ResetOffsetsRequest: MessageTypeDefinition<_tide_v1_ResetOffsetsRequest__Input, _tide_v1_ResetOffsetsRequest>
      ResetOffsetsResponse: MessageTypeDefinition<_tide_v1_ResetOffsetsResponse__Input, _tide_v1_ResetOffsetsResponse>
      ResetPlanEntry: MessageTypeDefinition<_tide_v1_ResetPlanEntry__Input, _tide_v1_ResetPlanEntry>
      ResetTo: EnumTypeDefinition
      RevocationAck: MessageTypeDefinition<_tide_v1_RevocationAck__Input, _tide_v1_RevocationAck>
      Revoke: MessageTypeDefinition<_tide_v1_Revoke__Input, _tide_v1_Revoke>
      ShardOwner: MessageTypeDefinition<_tide_v1_ShardOwner__Input, _tide_v1_ShardOwner>
      TopicInfo: MessageTypeDefinition<_tide_v1_TopicInfo__Input, _tide_v1_TopicInfo>
      TopicPartitionCount: MessageTypeDefinition<_tide_v1_TopicPartitionCount__Input, _tide_v1_TopicPartitionCount>
      TopicPartitions: MessageTypeDefinition<_tide_v1_TopicPartitions__Input, _tide_v1_TopicPartitions>
      TransactionCoordinator: SubtypeConstructor<typeof grpc.Client, _tide_v1_TransactionCoordinatorClient> & { service: _tide_v1_TransactionCoordinatorDefinition }
      TransactionDescription: MessageTypeDefinition<_tide_v1_TransactionDescription__Input, _tide_v1_TransactionDescription>
      TransactionListing: MessageTypeDefinition<_tide_v1_TransactionListing__Input, _tide_v1_TransactionListing>
      TxnOffset: MessageTypeDefinition<_tide_v1_TxnOffset__Input, _tide_v1_TxnOffset>
      TxnOffsetCommitRequest: MessageTypeDefinition<_tide_v1_TxnOffsetCommitRequest__Input, _tide_v1_TxnOffsetCommitRequest>
      TxnOffsetCommitResponse: MessageTypeDefinition<_tide_v1_TxnOffsetCommitResponse__Input, _tide_v1_TxnOffsetCommitResponse>
      UserDataUpdate: MessageTypeDefinition<_tide_v1_UserDataUpdate__Input, _tide_v1_UserDataUpdate>
    }
  }
}

