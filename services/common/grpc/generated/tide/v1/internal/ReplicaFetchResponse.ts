// Original file: protos/tide/v1/internal/replication.proto

import type { ReplicaFetchPartitionResponse__Input as _tide_v1_internal_ReplicaFetchPartitionResponse__Input, ReplicaFetchPartitionResponse as _tide_v1_internal_ReplicaFetchPartitionResponse } from '../../../tide/v1/internal/ReplicaFetchPartitionResponse';

export interface ReplicaFetchResponse__Input {
  'partitions'?: (_tide_v1_internal_ReplicaFetchPartitionResponse__Input)[];
}

export interface ReplicaFetchResponse {
  'partitions': (_tide_v1_internal_ReplicaFetchPartitionResponse)[];
}
