// Original file: protos/tide/v1/coordinator.proto

import type { GroupListing__Input as _tide_v1_GroupListing__Input, GroupListing as _tide_v1_GroupListing } from '../../tide/v1/GroupListing';

export interface ListGroupsResponse__Input {
  'groups'?: (_tide_v1_GroupListing__Input)[];
}

export interface ListGroupsResponse {
  'groups': (_tide_v1_GroupListing)[];
}
