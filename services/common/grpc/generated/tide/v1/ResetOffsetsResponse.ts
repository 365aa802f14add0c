// Original file: protos/tide/v1/coordinator.proto

import type { ResetPlanEntry__Input as _tide_v1_ResetPlanEntry__Input, ResetPlanEntry as _tide_v1_ResetPlanEntry } from '../../tide/v1/ResetPlanEntry';

export interface ResetOffsetsResponse__Input {
  'plan'?: (_tide_v1_ResetPlanEntry__Input)[];
  'applied'?: (boolean);
  'generation'?: (number);
}

export interface ResetOffsetsResponse {
  'plan': (_tide_v1_ResetPlanEntry)[];
  'applied': (boolean);
  'generation': (number);
}
