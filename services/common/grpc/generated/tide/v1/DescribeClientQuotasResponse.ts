// Original file: protos/tide/v1/admin.proto

import type { ClientQuota__Input as _tide_v1_ClientQuota__Input, ClientQuota as _tide_v1_ClientQuota } from '../../tide/v1/ClientQuota';

export interface DescribeClientQuotasResponse__Input {
  'quotas'?: (_tide_v1_ClientQuota__Input)[];
}

export interface DescribeClientQuotasResponse {
  'quotas': (_tide_v1_ClientQuota)[];
}
