// Original file: protos/tide/v1/broker.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { FetchRequest__Input as _tide_v1_FetchRequest__Input, FetchRequest as _tide_v1_FetchRequest } from '../../tide/v1/FetchRequest';
import type { FetchResponse__Input as _tide_v1_FetchResponse__Input, FetchResponse as _tide_v1_FetchResponse } from '../../tide/v1/FetchResponse';
import type { FetchStreamMultiResponse__Input as _tide_v1_FetchStreamMultiResponse__Input, FetchStreamMultiResponse as _tide_v1_FetchStreamMultiResponse } from '../../tide/v1/FetchStreamMultiResponse';
import type { FetchStreamRequest__Input as _tide_v1_FetchStreamRequest__Input, FetchStreamRequest as _tide_v1_FetchStreamRequest } from '../../tide/v1/FetchStreamRequest';
import type { InitProducerIdRequest__Input as _tide_v1_InitProducerIdRequest__Input, InitProducerIdRequest as _tide_v1_InitProducerIdRequest } from '../../tide/v1/InitProducerIdRequest';
import type { InitProducerIdResponse__Input as _tide_v1_InitProducerIdResponse__Input, InitProducerIdResponse as _tide_v1_InitProducerIdResponse } from '../../tide/v1/InitProducerIdResponse';
import type { ListOffsetsRequest__Input as _tide_v1_ListOffsetsRequest__Input, ListOffsetsRequest as _tide_v1_ListOffsetsRequest } from '../../tide/v1/ListOffsetsRequest';
import type { ListOffsetsResponse__Input as _tide_v1_ListOffsetsResponse__Input, ListOffsetsResponse as _tide_v1_ListOffsetsResponse } from '../../tide/v1/ListOffsetsResponse';
import type { MetadataRequest__Input as _tide_v1_MetadataRequest__Input, MetadataRequest as _tide_v1_MetadataRequest } from '../../tide/v1/MetadataRequest';
import type { MetadataResponse__Input as _tide_v1_MetadataResponse__Input, MetadataResponse as _tide_v1_MetadataResponse } from '../../tide/v1/MetadataResponse';
import type { ProduceRequest__Input as _tide_v1_ProduceRequest__Input, ProduceRequest as _tide_v1_ProduceRequest } from '../../tide/v1/ProduceRequest';
import type { ProduceResponse__Input as _tide_v1_ProduceResponse__Input, ProduceResponse as _tide_v1_ProduceResponse } from '../../tide/v1/ProduceResponse';

export interface BrokerClient extends grpc.Client {
  Fetch(argument: _tide_v1_FetchRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FetchResponse>): grpc.ClientUnaryCall;
  Fetch(argument: _tide_v1_FetchRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_FetchResponse>): grpc.ClientUnaryCall;
  Fetch(argument: _tide_v1_FetchRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FetchResponse>): grpc.ClientUnaryCall;
  Fetch(argument: _tide_v1_FetchRequest__Input, callback: grpc.requestCallback<_tide_v1_FetchResponse>): grpc.ClientUnaryCall;
  fetch(argument: _tide_v1_FetchRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FetchResponse>): grpc.ClientUnaryCall;
  fetch(argument: _tide_v1_FetchRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_FetchResponse>): grpc.ClientUnaryCall;
  fetch(argument: _tide_v1_FetchRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FetchResponse>): grpc.ClientUnaryCall;
  fetch(argument: _tide_v1_FetchRequest__Input, callback: grpc.requestCallback<_tide_v1_FetchResponse>): grpc.ClientUnaryCall;
  
  FetchStream(argument: _tide_v1_FetchStreamRequest__Input, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_FetchResponse>;
  FetchStream(argument: _tide_v1_FetchStreamRequest__Input, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_FetchResponse>;
  fetchStream(argument: _tide_v1_FetchStreamRequest__Input, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_FetchResponse>;
  fetchStream(argument: _tide_v1_FetchStreamRequest__Input, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_FetchResponse>;
  
  FetchStreamMulti(argument: _tide_v1_FetchStreamRequest__Input, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_FetchStreamMultiResponse>;
  FetchStreamMulti(argument: _tide_v1_FetchStreamRequest__Input, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_FetchStreamMultiResponse>;
  fetchStreamMulti(argument: _tide_v1_FetchStreamRequest__Input, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_FetchStreamMultiResponse>;
  fetchStreamMulti(argument: _tide_v1_FetchStreamRequest__Input, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_FetchStreamMultiResponse>;
  
  InitProducerId(argument: _tide_v1_InitProducerIdRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_InitProducerIdResponse>): grpc.ClientUnaryCall;
  InitProducerId(argument: _tide_v1_InitProducerIdRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_InitProducerIdResponse>): grpc.ClientUnaryCall;
  InitProducerId(argument: _tide_v1_InitProducerIdRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_InitProducerIdResponse>): grpc.ClientUnaryCall;
  InitProducerId(argument: _tide_v1_InitProducerIdRequest__Input, callback: grpc.requestCallback<_tide_v1_InitProducerIdResponse>): grpc.ClientUnaryCall;
  initProducerId(argument: _tide_v1_InitProducerIdRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_InitProducerIdResponse>): grpc.ClientUnaryCall;
  initProducerId(argument: _tide_v1_InitProducerIdRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_InitProducerIdResponse>): grpc.ClientUnaryCall;
  initProducerId(argument: _tide_v1_InitProducerIdRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_InitProducerIdResponse>): grpc.ClientUnaryCall;
  initProducerId(argument: _tide_v1_InitProducerIdRequest__Input, callback: grpc.requestCallback<_tide_v1_InitProducerIdResponse>): grpc.ClientUnaryCall;
  
  ListOffsets(argument: _tide_v1_ListOffsetsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListOffsetsResponse>): grpc.ClientUnaryCall;
  ListOffsets(argument: _tide_v1_ListOffsetsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListOffsetsResponse>): grpc.ClientUnaryCall;
  ListOffsets(argument: _tide_v1_ListOffsetsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListOffsetsResponse>): grpc.ClientUnaryCall;
  ListOffsets(argument: _tide_v1_ListOffsetsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListOffsetsResponse>): grpc.ClientUnaryCall;
  listOffsets(argument: _tide_v1_ListOffsetsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListOffsetsResponse>): grpc.ClientUnaryCall;
  listOffsets(argument: _tide_v1_ListOffsetsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListOffsetsResponse>): grpc.ClientUnaryCall;
  listOffsets(argument: _tide_v1_ListOffsetsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListOffsetsResponse>): grpc.ClientUnaryCall;
  listOffsets(argument: _tide_v1_ListOffsetsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListOffsetsResponse>): grpc.ClientUnaryCall;
  
  Metadata(argument: _tide_v1_MetadataRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_MetadataResponse>): grpc.ClientUnaryCall;
  Metadata(argument: _tide_v1_MetadataRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_MetadataResponse>): grpc.ClientUnaryCall;
  Metadata(argument: _tide_v1_MetadataRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_MetadataResponse>): grpc.ClientUnaryCall;
  Metadata(argument: _tide_v1_MetadataRequest__Input, callback: grpc.requestCallback<_tide_v1_MetadataResponse>): grpc.ClientUnaryCall;
  metadata(argument: _tide_v1_MetadataRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_MetadataResponse>): grpc.ClientUnaryCall;
  metadata(argument: _tide_v1_MetadataRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_MetadataResponse>): grpc.ClientUnaryCall;
  metadata(argument: _tide_v1_MetadataRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_MetadataResponse>): grpc.ClientUnaryCall;
  metadata(argument: _tide_v1_MetadataRequest__Input, callback: grpc.requestCallback<_tide_v1_MetadataResponse>): grpc.ClientUnaryCall;
  
  Produce(argument: _tide_v1_ProduceRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ProduceResponse>): grpc.ClientUnaryCall;
  Produce(argument: _tide_v1_ProduceRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ProduceResponse>): grpc.ClientUnaryCall;
  Produce(argument: _tide_v1_ProduceRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ProduceResponse>): grpc.ClientUnaryCall;
  Produce(argument: _tide_v1_ProduceRequest__Input, callback: grpc.requestCallback<_tide_v1_ProduceResponse>): grpc.ClientUnaryCall;
  produce(argument: _tide_v1_ProduceRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ProduceResponse>): grpc.ClientUnaryCall;
  produce(argument: _tide_v1_ProduceRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ProduceResponse>): grpc.ClientUnaryCall;
  produce(argument: _tide_v1_ProduceRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ProduceResponse>): grpc.ClientUnaryCall;
  produce(argument: _tide_v1_ProduceRequest__Input, callback: grpc.requestCallback<_tide_v1_ProduceResponse>): grpc.ClientUnaryCall;
  
  ProduceStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_ProduceRequest__Input, _tide_v1_ProduceResponse>;
  ProduceStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_ProduceRequest__Input, _tide_v1_ProduceResponse>;
  produceStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_ProduceRequest__Input, _tide_v1_ProduceResponse>;
  produceStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_ProduceRequest__Input, _tide_v1_ProduceResponse>;
  
  WatchMetadata(argument: _tide_v1_MetadataRequest__Input, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_MetadataResponse>;
  WatchMetadata(argument: _tide_v1_MetadataRequest__Input, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_MetadataResponse>;
  watchMetadata(argument: _tide_v1_MetadataRequest__Input, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_MetadataResponse>;
  watchMetadata(argument: _tide_v1_MetadataRequest__Input, options?: grpc.CallOptions): grpc.ClientReadableStream<_tide_v1_MetadataResponse>;
  
}

export interface BrokerHandlers extends grpc.UntypedServiceImplementation {
  Fetch: grpc.handleUnaryCall<_tide_v1_FetchRequest, _tide_v1_FetchResponse__Input>;
  
  FetchStream: grpc.handleServerStreamingCall<_tide_v1_FetchStreamRequest, _tide_v1_FetchResponse__Input>;
  
  FetchStreamMulti: grpc.handleServerStreamingCall<_tide_v1_FetchStreamRequest, _tide_v1_FetchStreamMultiResponse__Input>;
  
  InitProducerId: grpc.handleUnaryCall<_tide_v1_InitProducerIdRequest, _tide_v1_InitProducerIdResponse__Input>;
  
  ListOffsets: grpc.handleUnaryCall<_tide_v1_ListOffsetsRequest, _tide_v1_ListOffsetsResponse__Input>;
  
  Metadata: grpc.handleUnaryCall<_tide_v1_MetadataRequest, _tide_v1_MetadataResponse__Input>;
  
  Produce: grpc.handleUnaryCall<_tide_v1_ProduceRequest, _tide_v1_ProduceResponse__Input>;
  
  ProduceStream: grpc.handleBidiStreamingCall<_tide_v1_ProduceRequest, _tide_v1_ProduceResponse__Input>;
  
  WatchMetadata: grpc.handleServerStreamingCall<_tide_v1_MetadataRequest, _tide_v1_MetadataResponse__Input>;
  
}

export interface BrokerDefinition extends grpc.ServiceDefinition {
  Fetch: MethodDefinition<_tide_v1_FetchRequest__Input, _tide_v1_FetchResponse__Input, _tide_v1_FetchRequest, _tide_v1_FetchResponse>
  FetchStream: MethodDefinition<_tide_v1_FetchStreamRequest__Input, _tide_v1_FetchResponse__Input, _tide_v1_FetchStreamRequest, _tide_v1_FetchResponse>
  FetchStreamMulti: MethodDefinition<_tide_v1_FetchStreamRequest__Input, _tide_v1_FetchStreamMultiResponse__Input, _tide_v1_FetchStreamRequest, _tide_v1_FetchStreamMultiResponse>
  InitProducerId: MethodDefinition<_tide_v1_InitProducerIdRequest__Input, _tide_v1_InitProducerIdResponse__Input, _tide_v1_InitProducerIdRequest, _tide_v1_InitProducerIdResponse>
  ListOffsets: MethodDefinition<_tide_v1_ListOffsetsRequest__Input, _tide_v1_ListOffsetsResponse__Input, _tide_v1_ListOffsetsRequest, _tide_v1_ListOffsetsResponse>
  Metadata: MethodDefinition<_tide_v1_MetadataRequest__Input, _tide_v1_MetadataResponse__Input, _tide_v1_MetadataRequest, _tide_v1_MetadataResponse>
  Produce: MethodDefinition<_tide_v1_ProduceRequest__Input, _tide_v1_ProduceResponse__Input, _tide_v1_ProduceRequest, _tide_v1_ProduceResponse>
  ProduceStream: MethodDefinition<_tide_v1_ProduceRequest__Input, _tide_v1_ProduceResponse__Input, _tide_v1_ProduceRequest, _tide_v1_ProduceResponse>
  WatchMetadata: MethodDefinition<_tide_v1_MetadataRequest__Input, _tide_v1_MetadataResponse__Input, _tide_v1_MetadataRequest, _tide_v1_MetadataResponse>
}
