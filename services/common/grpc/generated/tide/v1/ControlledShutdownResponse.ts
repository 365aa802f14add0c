// Original file: protos/tide/v1/controller.proto

import type { PartitionRef__Input as _tide_v1_PartitionRef__Input, PartitionRef as _tide_v1_PartitionRef } from '../../tide/v1/PartitionRef';

export interface ControlledShutdownResponse__Input {
  'remaining_partitions'?: (string)[];
  'remaining'?: (_tide_v1_PartitionRef__Input)[];
}

export interface ControlledShutdownResponse {
  'remaining_partitions': (string)[];
  'remaining': (_tide_v1_PartitionRef)[];
}
