// Original file: protos/tide/v1/broker.proto

import type { BrokerInfo__Input as _tide_v1_BrokerInfo__Input, BrokerInfo as _tide_v1_BrokerInfo } from '../../tide/v1/BrokerInfo';
import type { TopicInfo__Input as _tide_v1_TopicInfo__Input, TopicInfo as _tide_v1_TopicInfo } from '../../tide/v1/TopicInfo';

export interface MetadataResponse__Input {
  'cluster_id'?: (string);
  'controller_id'?: (number);
  'brokers'?: (_tide_v1_BrokerInfo__Input)[];
  'topics'?: (_tide_v1_TopicInfo__Input)[];
}

export interface MetadataResponse {
  'cluster_id': (string);
  'controller_id': (number);
  'brokers': (_tide_v1_BrokerInfo)[];
  'topics': (_tide_v1_TopicInfo)[];
}
