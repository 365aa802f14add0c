// Original file: protos/tide/v1/admin.proto

import type { ConfigEntry__Input as _tide_v1_ConfigEntry__Input, ConfigEntry as _tide_v1_ConfigEntry } from '../../tide/v1/ConfigEntry';

export interface AlterConfigsResponse__Input {
  'configs'?: (_tide_v1_ConfigEntry__Input)[];
}

export interface AlterConfigsResponse {
  'configs': (_tide_v1_ConfigEntry)[];
}
