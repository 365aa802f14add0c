// Original file: protos/tide/v1/admin.proto

import type { AclFilter__Input as _tide_v1_AclFilter__Input, AclFilter as _tide_v1_AclFilter } from '../../tide/v1/AclFilter';

export interface DeleteAclsRequest__Input {
  'filters'?: (_tide_v1_AclFilter__Input)[];
}

export interface DeleteAclsRequest {
  'filters': (_tide_v1_AclFilter)[];
}
