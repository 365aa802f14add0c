// Original file: protos/tide/v1/internal/txn_offsets.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CompleteTxnOffsetsRequest__Input as _tide_v1_internal_CompleteTxnOffsetsRequest__Input, CompleteTxnOffsetsRequest as _tide_v1_internal_CompleteTxnOffsetsRequest } from '../../../tide/v1/internal/CompleteTxnOffsetsRequest';
import type { CompleteTxnOffsetsResponse__Input as _tide_v1_internal_CompleteTxnOffsetsResponse__Input, CompleteTxnOffsetsResponse as _tide_v1_internal_CompleteTxnOffsetsResponse } from '../../../tide/v1/internal/CompleteTxnOffsetsResponse';

export interface TxnOffsetsClient extends grpc.Client {
  CompleteTxnOffsets(argument: _tide_v1_internal_CompleteTxnOffsetsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_internal_CompleteTxnOffsetsResponse>): grpc.ClientUnaryCall;
  CompleteTxnOffsets(argument: _tide_v1_internal_CompleteTxnOffsetsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_internal_CompleteTxnOffsetsResponse>): grpc.ClientUnaryCall;
  CompleteTxnOffsets(argument: _tide_v1_internal_CompleteTxnOffsetsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_internal_CompleteTxnOffsetsResponse>): grpc.ClientUnaryCall;
  CompleteTxnOffsets(argument: _tide_v1_internal_CompleteTxnOffsetsRequest__Input, callback: grpc.requestCallback<_tide_v1_internal_CompleteTxnOffsetsResponse>): grpc.ClientUnaryCall;
  completeTxnOffsets(argument: _tide_v1_internal_CompleteTxnOffsetsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_internal_CompleteTxnOffsetsResponse>): grpc.ClientUnaryCall;
  completeTxnOffsets(argument: _tide_v1_internal_CompleteTxnOffsetsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_internal_CompleteTxnOffsetsResponse>): grpc.ClientUnaryCall;
  completeTxnOffsets(argument: _tide_v1_internal_CompleteTxnOffsetsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_internal_CompleteTxnOffsetsResponse>): grpc.ClientUnaryCall;
  completeTxnOffsets(argument: _tide_v1_internal_CompleteTxnOffsetsRequest__Input, callback: grpc.requestCallback<_tide_v1_internal_CompleteTxnOffsetsResponse>): grpc.ClientUnaryCall;
  
}

export interface TxnOffsetsHandlers extends grpc.UntypedServiceImplementation {
  CompleteTxnOffsets: grpc.handleUnaryCall<_tide_v1_internal_CompleteTxnOffsetsRequest, _tide_v1_internal_CompleteTxnOffsetsResponse__Input>;
  
}

export interface TxnOffsetsDefinition extends grpc.ServiceDefinition {
  CompleteTxnOffsets: MethodDefinition<_tide_v1_internal_CompleteTxnOffsetsRequest__Input, _tide_v1_internal_CompleteTxnOffsetsResponse__Input, _tide_v1_internal_CompleteTxnOffsetsRequest, _tide_v1_internal_CompleteTxnOffsetsResponse>
}
