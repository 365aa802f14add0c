// Original file: protos/tide/v1/admin.proto

import type { BrokerInfo__Input as _tide_v1_BrokerInfo__Input, BrokerInfo as _tide_v1_BrokerInfo } from '../../tide/v1/BrokerInfo';

export interface DescribeClusterResponse__Input {
  'cluster_id'?: (string);
  'controller_id'?: (number);
  'brokers'?: (_tide_v1_BrokerInfo__Input)[];
}

export interface DescribeClusterResponse {
  'cluster_id': (string);
  'controller_id': (number);
  'brokers': (_tide_v1_BrokerInfo)[];
}
