// Original file: protos/tide/v1/controller.proto

import type { PartitionInfo__Input as _tide_v1_PartitionInfo__Input, PartitionInfo as _tide_v1_PartitionInfo } from '../../tide/v1/PartitionInfo';

export interface ReportReplicaOfflineResponse__Input {
  'partition'?: (_tide_v1_PartitionInfo__Input | null);
}

export interface ReportReplicaOfflineResponse {
  'partition': (_tide_v1_PartitionInfo | null);
}
