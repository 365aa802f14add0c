// Original file: protos/tide/v1/admin.proto

import type { TopicInfo__Input as _tide_v1_TopicInfo__Input, TopicInfo as _tide_v1_TopicInfo } from '../../tide/v1/TopicInfo';
import type { ConfigEntry__Input as _tide_v1_ConfigEntry__Input, ConfigEntry as _tide_v1_ConfigEntry } from '../../tide/v1/ConfigEntry';
import type { PartitionStatus__Input as _tide_v1_PartitionStatus__Input, PartitionStatus as _tide_v1_PartitionStatus } from '../../tide/v1/PartitionStatus';

export interface DescribeTopicResponse__Input {
  'topic'?: (_tide_v1_TopicInfo__Input | null);
  'configs'?: (_tide_v1_ConfigEntry__Input)[];
  'status'?: (_tide_v1_PartitionStatus__Input)[];
}

export interface DescribeTopicResponse {
  'topic': (_tide_v1_TopicInfo | null);
  'configs': (_tide_v1_ConfigEntry)[];
  'status': (_tide_v1_PartitionStatus)[];
}
