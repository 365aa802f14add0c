// Original file: protos/tide/v1/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface PartitionStatus__Input {
  'partition'?: (number);
  'log_start_offset'?: (number | string | Long);
  'high_watermark'?: (number | string | Long);
  'log_end_offset'?: (number | string | Long);
  'size_bytes'?: (number | string | Long);
  'dirty_ratio'?: (number | string);
  'last_stable_offset'?: (number | string | Long);
}

export interface PartitionStatus {
  'partition': (number);
  'log_start_offset': (number);
  'high_watermark': (number);
  'log_end_offset': (number);
  'size_bytes': (number);
  'dirty_ratio': (number);
  'last_stable_offset': (number);
}
