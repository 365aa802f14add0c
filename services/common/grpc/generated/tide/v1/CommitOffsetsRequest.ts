// Original file: protos/tide/v1/coordinator.proto

import type { PartitionOffset__Input as _tide_v1_PartitionOffset__Input, PartitionOffset as _tide_v1_PartitionOffset } from '../../tide/v1/PartitionOffset';

export interface CommitOffsetsRequest__Input {
  'group_id'?: (string);
  'member_id'?: (string);
  'member_epoch'?: (number);
  'offsets'?: (_tide_v1_PartitionOffset__Input)[];
}

export interface CommitOffsetsRequest {
  'group_id': (string);
  'member_id': (string);
  'member_epoch': (number);
  'offsets': (_tide_v1_PartitionOffset)[];
}
