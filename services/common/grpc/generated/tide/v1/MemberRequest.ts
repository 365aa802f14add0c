// Original file: protos/tide/v1/coordinator.proto

import type { JoinGroup__Input as _tide_v1_JoinGroup__Input, JoinGroup as _tide_v1_JoinGroup } from '../../tide/v1/JoinGroup';
import type { Heartbeat__Input as _tide_v1_Heartbeat__Input, Heartbeat as _tide_v1_Heartbeat } from '../../tide/v1/Heartbeat';
import type { RevocationAck__Input as _tide_v1_RevocationAck__Input, RevocationAck as _tide_v1_RevocationAck } from '../../tide/v1/RevocationAck';
import type { LeaveGroup__Input as _tide_v1_LeaveGroup__Input, LeaveGroup as _tide_v1_LeaveGroup } from '../../tide/v1/LeaveGroup';
import type { UserDataUpdate__Input as _tide_v1_UserDataUpdate__Input, UserDataUpdate as _tide_v1_UserDataUpdate } from '../../tide/v1/UserDataUpdate';
import type { AssignmentResult__Input as _tide_v1_AssignmentResult__Input, AssignmentResult as _tide_v1_AssignmentResult } from '../../tide/v1/AssignmentResult';

export interface MemberRequest__Input {
  'join'?: (_tide_v1_JoinGroup__Input | null);
  'heartbeat'?: (_tide_v1_Heartbeat__Input | null);
  'revoked'?: (_tide_v1_RevocationAck__Input | null);
  'leave'?: (_tide_v1_LeaveGroup__Input | null);
  'user_data'?: (_tide_v1_UserDataUpdate__Input | null);
  'assignment_result'?: (_tide_v1_AssignmentResult__Input | null);
  'kind'?: "join"|"heartbeat"|"revoked"|"leave"|"user_data"|"assignment_result";
}

export interface MemberRequest {
  'join'?: (_tide_v1_JoinGroup | null);
  'heartbeat'?: (_tide_v1_Heartbeat | null);
  'revoked'?: (_tide_v1_RevocationAck | null);
  'leave'?: (_tide_v1_LeaveGroup | null);
  'user_data'?: (_tide_v1_UserDataUpdate | null);
  'assignment_result'?: (_tide_v1_AssignmentResult | null);
  'kind'?: "join"|"heartbeat"|"revoked"|"leave"|"user_data"|"assignment_result";
}
