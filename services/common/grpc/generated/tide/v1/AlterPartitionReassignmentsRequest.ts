// Original file: protos/tide/v1/admin.proto

import type { PartitionReassignment__Input as _tide_v1_PartitionReassignment__Input, PartitionReassignment as _tide_v1_PartitionReassignment } from '../../tide/v1/PartitionReassignment';

export interface AlterPartitionReassignmentsRequest__Input {
  'reassignments'?: (_tide_v1_PartitionReassignment__Input)[];
  'validate_only'?: (boolean);
}

export interface AlterPartitionReassignmentsRequest {
  'reassignments': (_tide_v1_PartitionReassignment)[];
  'validate_only': (boolean);
}
