// Original file: protos/tide/v1/coordinator.proto

import type { Joined__Input as _tide_v1_Joined__Input, Joined as _tide_v1_Joined } from '../../tide/v1/Joined';
import type { Assignment__Input as _tide_v1_Assignment__Input, Assignment as _tide_v1_Assignment } from '../../tide/v1/Assignment';
import type { Revoke__Input as _tide_v1_Revoke__Input, Revoke as _tide_v1_Revoke } from '../../tide/v1/Revoke';
import type { HeartbeatAck__Input as _tide_v1_HeartbeatAck__Input, HeartbeatAck as _tide_v1_HeartbeatAck } from '../../tide/v1/HeartbeatAck';
import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from '../../tide/v1/Error';
import type { ComputeAssignment__Input as _tide_v1_ComputeAssignment__Input, ComputeAssignment as _tide_v1_ComputeAssignment } from '../../tide/v1/ComputeAssignment';

export interface MemberResponse__Input {
  'joined'?: (_tide_v1_Joined__Input | null);
  'assignment'?: (_tide_v1_Assignment__Input | null);
  'revoke'?: (_tide_v1_Revoke__Input | null);
  'heartbeat'?: (_tide_v1_HeartbeatAck__Input | null);
  'error'?: (_tide_v1_Error__Input | null);
  'compute_assignment'?: (_tide_v1_ComputeAssignment__Input | null);
  'kind'?: "joined"|"assignment"|"revoke"|"heartbeat"|"error"|"compute_assignment";
}

export interface MemberResponse {
  'joined'?: (_tide_v1_Joined | null);
  'assignment'?: (_tide_v1_Assignment | null);
  'revoke'?: (_tide_v1_Revoke | null);
  'heartbeat'?: (_tide_v1_HeartbeatAck | null);
  'error'?: (_tide_v1_Error | null);
  'compute_assignment'?: (_tide_v1_ComputeAssignment | null);
  'kind'?: "joined"|"assignment"|"revoke"|"heartbeat"|"error"|"compute_assignment";
}
