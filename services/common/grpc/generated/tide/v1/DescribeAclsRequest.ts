// Original file: protos/tide/v1/admin.proto

import type { AclFilter__Input as _tide_v1_AclFilter__Input, AclFilter as _tide_v1_AclFilter } from '../../tide/v1/AclFilter';

export interface DescribeAclsRequest__Input {
  'filter'?: (_tide_v1_AclFilter__Input | null);
}

export interface DescribeAclsRequest {
  'filter': (_tide_v1_AclFilter | null);
}
