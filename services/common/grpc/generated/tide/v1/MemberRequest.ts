// Original file: protos/tide/v1/coordinator.proto

import type { JoinGroup__Input as _tide_v1_JoinGroup__Input, JoinGroup as _tide_v1_JoinGroup } from '../../tide/v1/JoinGroup';
import type { Heartbeat__Input as _tide_v1_Heartbeat__Input, Heartbeat as _tide_v1_Heartbeat } from '../../tide/v1/Heartbeat';
import type { RevocationAck__Input as _tide_v1_RevocationAck__Input, RevocationAck as _tide_v1_RevocationAck } from '../../tide/v1/RevocationAck';
import type { LeaveGroup__Input as _tide_v1_LeaveGroup__Input, LeaveGroup as _tide_v1_LeaveGroup } from '../../tide/v1/LeaveGroup';

export interface MemberRequest__Input {
  'join'?: (_tide_v1_JoinGroup__Input | null);
  'heartbeat'?: (_tide_v1_Heartbeat__Input | null);
  'revoked'?: (_tide_v1_RevocationAck__Input | null);
  'leave'?: (_tide_v1_LeaveGroup__Input | null);
  'kind'?: "join"|"heartbeat"|"revoked"|"leave";
}

export interface MemberRequest {
  'join'?: (_tide_v1_JoinGroup | null);
  'heartbeat'?: (_tide_v1_Heartbeat | null);
  'revoked'?: (_tide_v1_RevocationAck | null);
  'leave'?: (_tide_v1_LeaveGroup | null);
  'kind'?: "join"|"heartbeat"|"revoked"|"leave";
}
