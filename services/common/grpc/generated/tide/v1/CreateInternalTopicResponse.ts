// Original file: protos/tide/v1/controller.proto

import type { TopicInfo__Input as _tide_v1_TopicInfo__Input, TopicInfo as _tide_v1_TopicInfo } from '../../tide/v1/TopicInfo';

export interface CreateInternalTopicResponse__Input {
  'topic'?: (_tide_v1_TopicInfo__Input | null);
}

export interface CreateInternalTopicResponse {
  'topic': (_tide_v1_TopicInfo | null);
}
