// Original file: protos/tide/v1/admin.proto

import type { QuotaEntity__Input as _tide_v1_QuotaEntity__Input, QuotaEntity as _tide_v1_QuotaEntity } from '../../tide/v1/QuotaEntity';

export interface DescribeClientQuotasRequest__Input {
  'filter'?: (_tide_v1_QuotaEntity__Input | null);
}

export interface DescribeClientQuotasRequest {
  'filter': (_tide_v1_QuotaEntity | null);
}
