// Original file: protos/tide/v1/internal/txn_joins.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { TxnJoinStreamRequest__Input as _tide_v1_internal_TxnJoinStreamRequest__Input, TxnJoinStreamRequest as _tide_v1_internal_TxnJoinStreamRequest } from '../../../tide/v1/internal/TxnJoinStreamRequest';
import type { TxnJoinStreamResponse__Input as _tide_v1_internal_TxnJoinStreamResponse__Input, TxnJoinStreamResponse as _tide_v1_internal_TxnJoinStreamResponse } from '../../../tide/v1/internal/TxnJoinStreamResponse';

export interface TxnJoinsClient extends grpc.Client {
  JoinStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_TxnJoinStreamRequest__Input, _tide_v1_internal_TxnJoinStreamResponse>;
  JoinStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_TxnJoinStreamRequest__Input, _tide_v1_internal_TxnJoinStreamResponse>;
  joinStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_TxnJoinStreamRequest__Input, _tide_v1_internal_TxnJoinStreamResponse>;
  joinStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_TxnJoinStreamRequest__Input, _tide_v1_internal_TxnJoinStreamResponse>;
  
}

export interface TxnJoinsHandlers extends grpc.UntypedServiceImplementation {
  JoinStream: grpc.handleBidiStreamingCall<_tide_v1_internal_TxnJoinStreamRequest, _tide_v1_internal_TxnJoinStreamResponse__Input>;
  
}

export interface TxnJoinsDefinition extends grpc.ServiceDefinition {
  JoinStream: MethodDefinition<_tide_v1_internal_TxnJoinStreamRequest__Input, _tide_v1_internal_TxnJoinStreamResponse__Input, _tide_v1_internal_TxnJoinStreamRequest, _tide_v1_internal_TxnJoinStreamResponse>
}
