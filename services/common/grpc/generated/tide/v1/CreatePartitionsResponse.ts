// Original file: protos/tide/v1/admin.proto

import type { TopicInfo__Input as _tide_v1_TopicInfo__Input, TopicInfo as _tide_v1_TopicInfo } from '../../tide/v1/TopicInfo';

export interface CreatePartitionsResponse__Input {
  'topic'?: (_tide_v1_TopicInfo__Input | null);
}

export interface CreatePartitionsResponse {
  'topic': (_tide_v1_TopicInfo | null);
}
