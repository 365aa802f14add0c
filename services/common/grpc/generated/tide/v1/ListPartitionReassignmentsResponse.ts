// Original file: protos/tide/v1/admin.proto

import type { OngoingReassignment__Input as _tide_v1_OngoingReassignment__Input, OngoingReassignment as _tide_v1_OngoingReassignment } from '../../tide/v1/OngoingReassignment';

export interface ListPartitionReassignmentsResponse__Input {
  'reassignments'?: (_tide_v1_OngoingReassignment__Input)[];
}

export interface ListPartitionReassignmentsResponse {
  'reassignments': (_tide_v1_OngoingReassignment)[];
}
