// Original file: protos/tide/v1/controller.proto

import type { Long } from '@grpc/proto-loader';

export interface ReportLeaderUnreachableRequest__Input {
  'broker_id'?: (number);
  'leader_id'?: (number);
  'unreachable_for_ms'?: (number | string | Long);
}

export interface ReportLeaderUnreachableRequest {
  'broker_id': (number);
  'leader_id': (number);
  'unreachable_for_ms': (number);
}
