// Original file: protos/tide/v1/internal/replication.proto

import type { ReplicaFetchPartition__Input as _tide_v1_internal_ReplicaFetchPartition__Input, ReplicaFetchPartition as _tide_v1_internal_ReplicaFetchPartition } from '../../../tide/v1/internal/ReplicaFetchPartition';
import type { Long } from '@grpc/proto-loader';

export interface ReplicaFetchRequest__Input {
  'replica_id'?: (number);
  'broker_epoch'?: (number | string | Long);
  'partitions'?: (_tide_v1_internal_ReplicaFetchPartition__Input)[];
  'max_wait_ms'?: (number);
  'max_bytes'?: (number);
}

export interface ReplicaFetchRequest {
  'replica_id': (number);
  'broker_epoch': (number);
  'partitions': (_tide_v1_internal_ReplicaFetchPartition)[];
  'max_wait_ms': (number);
  'max_bytes': (number);
}
