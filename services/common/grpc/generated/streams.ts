import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { DescribeInstancesRequest__Input as _tide_v1_DescribeInstancesRequest__Input, DescribeInstancesRequest as _tide_v1_DescribeInstancesRequest } from './tide/v1/DescribeInstancesRequest';
import type { DescribeInstancesResponse__Input as _tide_v1_DescribeInstancesResponse__Input, DescribeInstancesResponse as _tide_v1_DescribeInstancesResponse } from './tide/v1/DescribeInstancesResponse';
import type { StoreAllRequest__Input as _tide_v1_StoreAllRequest__Input, StoreAllRequest as _tide_v1_StoreAllRequest } from './tide/v1/StoreAllRequest';
import type { StoreAllResponse__Input as _tide_v1_StoreAllResponse__Input, StoreAllResponse as _tide_v1_StoreAllResponse } from './tide/v1/StoreAllResponse';
import type { StoreEntry__Input as _tide_v1_StoreEntry__Input, StoreEntry as _tide_v1_StoreEntry } from './tide/v1/StoreEntry';
import type { StoreGetRequest__Input as _tide_v1_StoreGetRequest__Input, StoreGetRequest as _tide_v1_StoreGetRequest } from './tide/v1/StoreGetRequest';
import type { StoreGetResponse__Input as _tide_v1_StoreGetResponse__Input, StoreGetResponse as _tide_v1_StoreGetResponse } from './tide/v1/StoreGetResponse';
import type { StoreRangeRequest__Input as _tide_v1_StoreRangeRequest__Input, StoreRangeRequest as _tide_v1_StoreRangeRequest } from './tide/v1/StoreRangeRequest';
import type { StreamsInstance__Input as _tide_v1_StreamsInstance__Input, StreamsInstance as _tide_v1_StreamsInstance } from './tide/v1/StreamsInstance';
import type { StreamsQueryClient as _tide_v1_StreamsQueryClient, StreamsQueryDefinition as _tide_v1_StreamsQueryDefinition } from './tide/v1/StreamsQuery';
import type { WindowEntry__Input as _tide_v1_WindowEntry__Input, WindowEntry as _tide_v1_WindowEntry } from './tide/v1/WindowEntry';
import type { WindowFetchRequest__Input as _tide_v1_WindowFetchRequest__Input, WindowFetchRequest as _tide_v1_WindowFetchRequest } from './tide/v1/WindowFetchRequest';
import type { WindowFetchResponse__Input as _tide_v1_WindowFetchResponse__Input, WindowFetchResponse as _tide_v1_WindowFetchResponse } from './tide/v1/WindowFetchResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  tide: {
    v1: {
      DescribeInstancesRequest: MessageTypeDefinition<_tide_v1_DescribeInstancesRequest__Input, _tide_v1_DescribeInstancesRequest>
      DescribeInstancesResponse: MessageTypeDefinition<_tide_v1_DescribeInstancesResponse__Input, _tide_v1_DescribeInstancesResponse>
      StoreAllRequest: MessageTypeDefinition<_tide_v1_StoreAllRequest__Input, _tide_v1_StoreAllRequest>
      StoreAllResponse: MessageTypeDefinition<_tide_v1_StoreAllResponse__Input, _tide_v1_StoreAllResponse>
      StoreEntry: MessageTypeDefinition<_tide_v1_StoreEntry__Input, _tide_v1_StoreEntry>
      StoreGetRequest: MessageTypeDefinition<_tide_v1_StoreGetRequest__Input, _tide_v1_StoreGetRequest>
      StoreGetResponse: MessageTypeDefinition<_tide_v1_StoreGetResponse__Input, _tide_v1_StoreGetResponse>
      StoreRangeRequest: MessageTypeDefinition<_tide_v1_StoreRangeRequest__Input, _tide_v1_StoreRangeRequest>
      StreamsInstance: MessageTypeDefinition<_tide_v1_StreamsInstance__Input, _tide_v1_StreamsInstance>
      StreamsQuery: SubtypeConstructor<typeof grpc.Client, _tide_v1_StreamsQueryClient> & { service: _tide_v1_StreamsQueryDefinition }
      WindowEntry: MessageTypeDefinition<_tide_v1_WindowEntry__Input, _tide_v1_WindowEntry>
      WindowFetchRequest: MessageTypeDefinition<_tide_v1_WindowFetchRequest__Input, _tide_v1_WindowFetchRequest>
      WindowFetchResponse: MessageTypeDefinition<_tide_v1_WindowFetchResponse__Input, _tide_v1_WindowFetchResponse>
    }
  }
}

