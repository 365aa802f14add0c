// Original file: protos/tide/v1/admin.proto

import type { QuotaAlteration__Input as _tide_v1_QuotaAlteration__Input, QuotaAlteration as _tide_v1_QuotaAlteration } from '../../tide/v1/QuotaAlteration';

export interface AlterClientQuotasRequest__Input {
  'alterations'?: (_tide_v1_QuotaAlteration__Input)[];
}

export interface AlterClientQuotasRequest {
  'alterations': (_tide_v1_QuotaAlteration)[];
}
