// Original file: protos/tide/v1/internal/replication.proto

import type { Long } from '@grpc/proto-loader';

export interface ReplicaFetchPartition__Input {
  'topic'?: (string);
  'partition'?: (number);
  'fetch_offset'?: (number | string | Long);
  'current_leader_epoch'?: (number);
  'last_fetched_epoch'?: (number);
  'log_start_offset'?: (number | string | Long);
}

export interface ReplicaFetchPartition {
  'topic': (string);
  'partition': (number);
  'fetch_offset': (number);
  'current_leader_epoch': (number);
  'last_fetched_epoch': (number);
  'log_start_offset': (number);
}
