// Original file: protos/tide/v1/admin.proto

import type { ClientQuota__Input as _tide_v1_ClientQuota__Input, ClientQuota as _tide_v1_ClientQuota } from '../../tide/v1/ClientQuota';

export interface AlterClientQuotasResponse__Input {
  'quotas'?: (_tide_v1_ClientQuota__Input)[];
}

export interface AlterClientQuotasResponse {
  'quotas': (_tide_v1_ClientQuota)[];
}
