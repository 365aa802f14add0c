// Original file: protos/tide/v1/coordinator.proto

import type { MemberTarget__Input as _tide_v1_MemberTarget__Input, MemberTarget as _tide_v1_MemberTarget } from '../../tide/v1/MemberTarget';

export interface AssignmentResult__Input {
  'generation'?: (number);
  'targets'?: (_tide_v1_MemberTarget__Input)[];
}

export interface AssignmentResult {
  'generation': (number);
  'targets': (_tide_v1_MemberTarget)[];
}
