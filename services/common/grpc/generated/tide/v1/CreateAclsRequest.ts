// Original file: protos/tide/v1/admin.proto

import type { AclBinding__Input as _tide_v1_AclBinding__Input, AclBinding as _tide_v1_AclBinding } from '../../tide/v1/AclBinding';

export interface CreateAclsRequest__Input {
  'acls'?: (_tide_v1_AclBinding__Input)[];
}

export interface CreateAclsRequest {
  'acls': (_tide_v1_AclBinding)[];
}
