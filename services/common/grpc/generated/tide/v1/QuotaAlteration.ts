// Original file: protos/tide/v1/admin.proto

import type { QuotaEntity__Input as _tide_v1_QuotaEntity__Input, QuotaEntity as _tide_v1_QuotaEntity } from '../../tide/v1/QuotaEntity';
import type { QuotaValue__Input as _tide_v1_QuotaValue__Input, QuotaValue as _tide_v1_QuotaValue } from '../../tide/v1/QuotaValue';

export interface QuotaAlteration__Input {
  'entity'?: (_tide_v1_QuotaEntity__Input | null);
  'set'?: (_tide_v1_QuotaValue__Input)[];
  'remove'?: (string)[];
}

export interface QuotaAlteration {
  'entity': (_tide_v1_QuotaEntity | null);
  'set': (_tide_v1_QuotaValue)[];
  'remove': (string)[];
}
