// Original file: protos/tide/v1/internal/replication.proto

import type { Long } from '@grpc/proto-loader';

export interface EpochEndOffset__Input {
  'epoch'?: (number);
  'end_offset'?: (number | string | Long);
}

export interface EpochEndOffset {
  'epoch': (number);
  'end_offset': (number);
}
