// Original file: protos/tide/v1/internal/txn_markers.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { WriteTxnMarkersRequest__Input as _tide_v1_internal_WriteTxnMarkersRequest__Input, WriteTxnMarkersRequest as _tide_v1_internal_WriteTxnMarkersRequest } from '../../../tide/v1/internal/WriteTxnMarkersRequest';
import type { WriteTxnMarkersResponse__Input as _tide_v1_internal_WriteTxnMarkersResponse__Input, WriteTxnMarkersResponse as _tide_v1_internal_WriteTxnMarkersResponse } from '../../../tide/v1/internal/WriteTxnMarkersResponse';
import type { WriteTxnMarkersStreamRequest__Input as _tide_v1_internal_WriteTxnMarkersStreamRequest__Input, WriteTxnMarkersStreamRequest as _tide_v1_internal_WriteTxnMarkersStreamRequest } from '../../../tide/v1/internal/WriteTxnMarkersStreamRequest';
import type { WriteTxnMarkersStreamResponse__Input as _tide_v1_internal_WriteTxnMarkersStreamResponse__Input, WriteTxnMarkersStreamResponse as _tide_v1_internal_WriteTxnMarkersStreamResponse } from '../../../tide/v1/internal/WriteTxnMarkersStreamResponse';

export interface TxnMarkersClient extends grpc.Client {
  WriteTxnMarkers(argument: _tide_v1_internal_WriteTxnMarkersRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_internal_WriteTxnMarkersResponse>): grpc.ClientUnaryCall;
  WriteTxnMarkers(argument: _tide_v1_internal_WriteTxnMarkersRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_internal_WriteTxnMarkersResponse>): grpc.ClientUnaryCall;
  WriteTxnMarkers(argument: _tide_v1_internal_WriteTxnMarkersRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_internal_WriteTxnMarkersResponse>): grpc.ClientUnaryCall;
  WriteTxnMarkers(argument: _tide_v1_internal_WriteTxnMarkersRequest__Input, callback: grpc.requestCallback<_tide_v1_internal_WriteTxnMarkersResponse>): grpc.ClientUnaryCall;
  writeTxnMarkers(argument: _tide_v1_internal_WriteTxnMarkersRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_internal_WriteTxnMarkersResponse>): grpc.ClientUnaryCall;
  writeTxnMarkers(argument: _tide_v1_internal_WriteTxnMarkersRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_internal_WriteTxnMarkersResponse>): grpc.ClientUnaryCall;
  writeTxnMarkers(argument: _tide_v1_internal_WriteTxnMarkersRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_internal_WriteTxnMarkersResponse>): grpc.ClientUnaryCall;
  writeTxnMarkers(argument: _tide_v1_internal_WriteTxnMarkersRequest__Input, callback: grpc.requestCallback<_tide_v1_internal_WriteTxnMarkersResponse>): grpc.ClientUnaryCall;
  
  WriteTxnMarkersStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_WriteTxnMarkersStreamRequest__Input, _tide_v1_internal_WriteTxnMarkersStreamResponse>;
  WriteTxnMarkersStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_WriteTxnMarkersStreamRequest__Input, _tide_v1_internal_WriteTxnMarkersStreamResponse>;
  writeTxnMarkersStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_WriteTxnMarkersStreamRequest__Input, _tide_v1_internal_WriteTxnMarkersStreamResponse>;
  writeTxnMarkersStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_WriteTxnMarkersStreamRequest__Input, _tide_v1_internal_WriteTxnMarkersStreamResponse>;
  
}

export interface TxnMarkersHandlers extends grpc.UntypedServiceImplementation {
  WriteTxnMarkers: grpc.handleUnaryCall<_tide_v1_internal_WriteTxnMarkersRequest, _tide_v1_internal_WriteTxnMarkersResponse__Input>;
  
  WriteTxnMarkersStream: grpc.handleBidiStreamingCall<_tide_v1_internal_WriteTxnMarkersStreamRequest, _tide_v1_internal_WriteTxnMarkersStreamResponse__Input>;
  
}

export interface TxnMarkersDefinition extends grpc.ServiceDefinition {
  WriteTxnMarkers: MethodDefinition<_tide_v1_internal_WriteTxnMarkersRequest__Input, _tide_v1_internal_WriteTxnMarkersResponse__Input, _tide_v1_internal_WriteTxnMarkersRequest, _tide_v1_internal_WriteTxnMarkersResponse>
  WriteTxnMarkersStream: MethodDefinition<_tide_v1_internal_WriteTxnMarkersStreamRequest__Input, _tide_v1_internal_WriteTxnMarkersStreamResponse__Input, _tide_v1_internal_WriteTxnMarkersStreamRequest, _tide_v1_internal_WriteTxnMarkersStreamResponse>
}
