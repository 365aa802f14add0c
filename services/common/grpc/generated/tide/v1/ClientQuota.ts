// Original file: protos/tide/v1/admin.proto

import type { QuotaEntity__Input as _tide_v1_QuotaEntity__Input, QuotaEntity as _tide_v1_QuotaEntity } from '../../tide/v1/QuotaEntity';
import type { QuotaValue__Input as _tide_v1_QuotaValue__Input, QuotaValue as _tide_v1_QuotaValue } from '../../tide/v1/QuotaValue';

export interface ClientQuota__Input {
  'entity'?: (_tide_v1_QuotaEntity__Input | null);
  'values'?: (_tide_v1_QuotaValue__Input)[];
}

export interface ClientQuota {
  'entity': (_tide_v1_QuotaEntity | null);
  'values': (_tide_v1_QuotaValue)[];
}
