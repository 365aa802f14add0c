// Original file: protos/tide/v1/internal/replication.proto

import type { EpochEndOffset__Input as _tide_v1_internal_EpochEndOffset__Input, EpochEndOffset as _tide_v1_internal_EpochEndOffset } from '../../../tide/v1/internal/EpochEndOffset';
import type { Long } from '@grpc/proto-loader';

export interface ReplicaFetchPartitionResponse__Input {
  'topic'?: (string);
  'partition'?: (number);
  'error_code'?: (string);
  'error_message'?: (string);
  'high_watermark'?: (number | string | Long);
  'log_start_offset'?: (number | string | Long);
  'record_batches'?: (Buffer | Uint8Array | string);
  'diverging_epoch'?: (_tide_v1_internal_EpochEndOffset__Input | null);
  'leader_log_end_offset'?: (number | string | Long);
}

export interface ReplicaFetchPartitionResponse {
  'topic': (string);
  'partition': (number);
  'error_code': (string);
  'error_message': (string);
  'high_watermark': (number);
  'log_start_offset': (number);
  'record_batches': (Buffer);
  'diverging_epoch': (_tide_v1_internal_EpochEndOffset | null);
  'leader_log_end_offset': (number);
}
