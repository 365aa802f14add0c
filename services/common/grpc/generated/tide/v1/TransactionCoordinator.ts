// Original file: protos/tide/v1/transactions.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AddOffsetsToTxnRequest__Input as _tide_v1_AddOffsetsToTxnRequest__Input, AddOffsetsToTxnRequest as _tide_v1_AddOffsetsToTxnRequest } from '../../tide/v1/AddOffsetsToTxnRequest';
import type { AddOffsetsToTxnResponse__Input as _tide_v1_AddOffsetsToTxnResponse__Input, AddOffsetsToTxnResponse as _tide_v1_AddOffsetsToTxnResponse } from '../../tide/v1/AddOffsetsToTxnResponse';
import type { AddPartitionsToTxnRequest__Input as _tide_v1_AddPartitionsToTxnRequest__Input, AddPartitionsToTxnRequest as _tide_v1_AddPartitionsToTxnRequest } from '../../tide/v1/AddPartitionsToTxnRequest';
import type { AddPartitionsToTxnResponse__Input as _tide_v1_AddPartitionsToTxnResponse__Input, AddPartitionsToTxnResponse as _tide_v1_AddPartitionsToTxnResponse } from '../../tide/v1/AddPartitionsToTxnResponse';
import type { DescribeTransactionRequest__Input as _tide_v1_DescribeTransactionRequest__Input, DescribeTransactionRequest as _tide_v1_DescribeTransactionRequest } from '../../tide/v1/DescribeTransactionRequest';
import type { DescribeTransactionResponse__Input as _tide_v1_DescribeTransactionResponse__Input, DescribeTransactionResponse as _tide_v1_DescribeTransactionResponse } from '../../tide/v1/DescribeTransactionResponse';
import type { EndTxnRequest__Input as _tide_v1_EndTxnRequest__Input, EndTxnRequest as _tide_v1_EndTxnRequest } from '../../tide/v1/EndTxnRequest';
import type { EndTxnResponse__Input as _tide_v1_EndTxnResponse__Input, EndTxnResponse as _tide_v1_EndTxnResponse } from '../../tide/v1/EndTxnResponse';
import type { EndTxnStreamRequest__Input as _tide_v1_EndTxnStreamRequest__Input, EndTxnStreamRequest as _tide_v1_EndTxnStreamRequest } from '../../tide/v1/EndTxnStreamRequest';
import type { EndTxnStreamResponse__Input as _tide_v1_EndTxnStreamResponse__Input, EndTxnStreamResponse as _tide_v1_EndTxnStreamResponse } from '../../tide/v1/EndTxnStreamResponse';
import type { FindCoordinatorResponse__Input as _tide_v1_FindCoordinatorResponse__Input, FindCoordinatorResponse as _tide_v1_FindCoordinatorResponse } from '../../tide/v1/FindCoordinatorResponse';
import type { FindTransactionCoordinatorRequest__Input as _tide_v1_FindTransactionCoordinatorRequest__Input, FindTransactionCoordinatorRequest as _tide_v1_FindTransactionCoordinatorRequest } from '../../tide/v1/FindTransactionCoordinatorRequest';
import type { InitTransactionsRequest__Input as _tide_v1_InitTransactionsRequest__Input, InitTransactionsRequest as _tide_v1_InitTransactionsRequest } from '../../tide/v1/InitTransactionsRequest';
import type { InitTransactionsResponse__Input as _tide_v1_InitTransactionsResponse__Input, InitTransactionsResponse as _tide_v1_InitTransactionsResponse } from '../../tide/v1/InitTransactionsResponse';
import type { ListTransactionsRequest__Input as _tide_v1_ListTransactionsRequest__Input, ListTransactionsRequest as _tide_v1_ListTransactionsRequest } from '../../tide/v1/ListTransactionsRequest';
import type { ListTransactionsResponse__Input as _tide_v1_ListTransactionsResponse__Input, ListTransactionsResponse as _tide_v1_ListTransactionsResponse } from '../../tide/v1/ListTransactionsResponse';
import type { TxnOffsetCommitRequest__Input as _tide_v1_TxnOffsetCommitRequest__Input, TxnOffsetCommitRequest as _tide_v1_TxnOffsetCommitRequest } from '../../tide/v1/TxnOffsetCommitRequest';
import type { TxnOffsetCommitResponse__Input as _tide_v1_TxnOffsetCommitResponse__Input, TxnOffsetCommitResponse as _tide_v1_TxnOffsetCommitResponse } from '../../tide/v1/TxnOffsetCommitResponse';

export interface TransactionCoordinatorClient extends grpc.Client {
  AddOffsetsToTxn(argument: _tide_v1_AddOffsetsToTxnRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AddOffsetsToTxnResponse>): grpc.ClientUnaryCall;
  AddOffsetsToTxn(argument: _tide_v1_AddOffsetsToTxnRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AddOffsetsToTxnResponse>): grpc.ClientUnaryCall;
  AddOffsetsToTxn(argument: _tide_v1_AddOffsetsToTxnRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AddOffsetsToTxnResponse>): grpc.ClientUnaryCall;
  AddOffsetsToTxn(argument: _tide_v1_AddOffsetsToTxnRequest__Input, callback: grpc.requestCallback<_tide_v1_AddOffsetsToTxnResponse>): grpc.ClientUnaryCall;
  addOffsetsToTxn(argument: _tide_v1_AddOffsetsToTxnRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AddOffsetsToTxnResponse>): grpc.ClientUnaryCall;
  addOffsetsToTxn(argument: _tide_v1_AddOffsetsToTxnRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AddOffsetsToTxnResponse>): grpc.ClientUnaryCall;
  addOffsetsToTxn(argument: _tide_v1_AddOffsetsToTxnRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AddOffsetsToTxnResponse>): grpc.ClientUnaryCall;
  addOffsetsToTxn(argument: _tide_v1_AddOffsetsToTxnRequest__Input, callback: grpc.requestCallback<_tide_v1_AddOffsetsToTxnResponse>): grpc.ClientUnaryCall;
  
  AddPartitionsToTxn(argument: _tide_v1_AddPartitionsToTxnRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AddPartitionsToTxnResponse>): grpc.ClientUnaryCall;
  AddPartitionsToTxn(argument: _tide_v1_AddPartitionsToTxnRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AddPartitionsToTxnResponse>): grpc.ClientUnaryCall;
  AddPartitionsToTxn(argument: _tide_v1_AddPartitionsToTxnRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AddPartitionsToTxnResponse>): grpc.ClientUnaryCall;
  AddPartitionsToTxn(argument: _tide_v1_AddPartitionsToTxnRequest__Input, callback: grpc.requestCallback<_tide_v1_AddPartitionsToTxnResponse>): grpc.ClientUnaryCall;
  addPartitionsToTxn(argument: _tide_v1_AddPartitionsToTxnRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AddPartitionsToTxnResponse>): grpc.ClientUnaryCall;
  addPartitionsToTxn(argument: _tide_v1_AddPartitionsToTxnRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_AddPartitionsToTxnResponse>): grpc.ClientUnaryCall;
  addPartitionsToTxn(argument: _tide_v1_AddPartitionsToTxnRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_AddPartitionsToTxnResponse>): grpc.ClientUnaryCall;
  addPartitionsToTxn(argument: _tide_v1_AddPartitionsToTxnRequest__Input, callback: grpc.requestCallback<_tide_v1_AddPartitionsToTxnResponse>): grpc.ClientUnaryCall;
  
  DescribeTransaction(argument: _tide_v1_DescribeTransactionRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTransactionResponse>): grpc.ClientUnaryCall;
  DescribeTransaction(argument: _tide_v1_DescribeTransactionRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeTransactionResponse>): grpc.ClientUnaryCall;
  DescribeTransaction(argument: _tide_v1_DescribeTransactionRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTransactionResponse>): grpc.ClientUnaryCall;
  DescribeTransaction(argument: _tide_v1_DescribeTransactionRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeTransactionResponse>): grpc.ClientUnaryCall;
  describeTransaction(argument: _tide_v1_DescribeTransactionRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTransactionResponse>): grpc.ClientUnaryCall;
  describeTransaction(argument: _tide_v1_DescribeTransactionRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_DescribeTransactionResponse>): grpc.ClientUnaryCall;
  describeTransaction(argument: _tide_v1_DescribeTransactionRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_DescribeTransactionResponse>): grpc.ClientUnaryCall;
  describeTransaction(argument: _tide_v1_DescribeTransactionRequest__Input, callback: grpc.requestCallback<_tide_v1_DescribeTransactionResponse>): grpc.ClientUnaryCall;
  
  EndTxn(argument: _tide_v1_EndTxnRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_EndTxnResponse>): grpc.ClientUnaryCall;
  EndTxn(argument: _tide_v1_EndTxnRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_EndTxnResponse>): grpc.ClientUnaryCall;
  EndTxn(argument: _tide_v1_EndTxnRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_EndTxnResponse>): grpc.ClientUnaryCall;
  EndTxn(argument: _tide_v1_EndTxnRequest__Input, callback: grpc.requestCallback<_tide_v1_EndTxnResponse>): grpc.ClientUnaryCall;
  endTxn(argument: _tide_v1_EndTxnRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_EndTxnResponse>): grpc.ClientUnaryCall;
  endTxn(argument: _tide_v1_EndTxnRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_EndTxnResponse>): grpc.ClientUnaryCall;
  endTxn(argument: _tide_v1_EndTxnRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_EndTxnResponse>): grpc.ClientUnaryCall;
  endTxn(argument: _tide_v1_EndTxnRequest__Input, callback: grpc.requestCallback<_tide_v1_EndTxnResponse>): grpc.ClientUnaryCall;
  
  EndTxnStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_EndTxnStreamRequest__Input, _tide_v1_EndTxnStreamResponse>;
  EndTxnStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_EndTxnStreamRequest__Input, _tide_v1_EndTxnStreamResponse>;
  endTxnStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_EndTxnStreamRequest__Input, _tide_v1_EndTxnStreamResponse>;
  endTxnStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_EndTxnStreamRequest__Input, _tide_v1_EndTxnStreamResponse>;
  
  FindTransactionCoordinator(argument: _tide_v1_FindTransactionCoordinatorRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  FindTransactionCoordinator(argument: _tide_v1_FindTransactionCoordinatorRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  FindTransactionCoordinator(argument: _tide_v1_FindTransactionCoordinatorRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  FindTransactionCoordinator(argument: _tide_v1_FindTransactionCoordinatorRequest__Input, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  findTransactionCoordinator(argument: _tide_v1_FindTransactionCoordinatorRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  findTransactionCoordinator(argument: _tide_v1_FindTransactionCoordinatorRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  findTransactionCoordinator(argument: _tide_v1_FindTransactionCoordinatorRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  findTransactionCoordinator(argument: _tide_v1_FindTransactionCoordinatorRequest__Input, callback: grpc.requestCallback<_tide_v1_FindCoordinatorResponse>): grpc.ClientUnaryCall;
  
  InitTransactions(argument: _tide_v1_InitTransactionsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_InitTransactionsResponse>): grpc.ClientUnaryCall;
  InitTransactions(argument: _tide_v1_InitTransactionsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_InitTransactionsResponse>): grpc.ClientUnaryCall;
  InitTransactions(argument: _tide_v1_InitTransactionsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_InitTransactionsResponse>): grpc.ClientUnaryCall;
  InitTransactions(argument: _tide_v1_InitTransactionsRequest__Input, callback: grpc.requestCallback<_tide_v1_InitTransactionsResponse>): grpc.ClientUnaryCall;
  initTransactions(argument: _tide_v1_InitTransactionsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_InitTransactionsResponse>): grpc.ClientUnaryCall;
  initTransactions(argument: _tide_v1_InitTransactionsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_InitTransactionsResponse>): grpc.ClientUnaryCall;
  initTransactions(argument: _tide_v1_InitTransactionsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_InitTransactionsResponse>): grpc.ClientUnaryCall;
  initTransactions(argument: _tide_v1_InitTransactionsRequest__Input, callback: grpc.requestCallback<_tide_v1_InitTransactionsResponse>): grpc.ClientUnaryCall;
  
  ListTransactions(argument: _tide_v1_ListTransactionsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTransactionsResponse>): grpc.ClientUnaryCall;
  ListTransactions(argument: _tide_v1_ListTransactionsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListTransactionsResponse>): grpc.ClientUnaryCall;
  ListTransactions(argument: _tide_v1_ListTransactionsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTransactionsResponse>): grpc.ClientUnaryCall;
  ListTransactions(argument: _tide_v1_ListTransactionsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListTransactionsResponse>): grpc.ClientUnaryCall;
  listTransactions(argument: _tide_v1_ListTransactionsRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTransactionsResponse>): grpc.ClientUnaryCall;
  listTransactions(argument: _tide_v1_ListTransactionsRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_ListTransactionsResponse>): grpc.ClientUnaryCall;
  listTransactions(argument: _tide_v1_ListTransactionsRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_ListTransactionsResponse>): grpc.ClientUnaryCall;
  listTransactions(argument: _tide_v1_ListTransactionsRequest__Input, callback: grpc.requestCallback<_tide_v1_ListTransactionsResponse>): grpc.ClientUnaryCall;
  
  TxnOffsetCommit(argument: _tide_v1_TxnOffsetCommitRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_TxnOffsetCommitResponse>): grpc.ClientUnaryCall;
  TxnOffsetCommit(argument: _tide_v1_TxnOffsetCommitRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_TxnOffsetCommitResponse>): grpc.ClientUnaryCall;
  TxnOffsetCommit(argument: _tide_v1_TxnOffsetCommitRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_TxnOffsetCommitResponse>): grpc.ClientUnaryCall;
  TxnOffsetCommit(argument: _tide_v1_TxnOffsetCommitRequest__Input, callback: grpc.requestCallback<_tide_v1_TxnOffsetCommitResponse>): grpc.ClientUnaryCall;
  txnOffsetCommit(argument: _tide_v1_TxnOffsetCommitRequest__Input, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_TxnOffsetCommitResponse>): grpc.ClientUnaryCall;
  txnOffsetCommit(argument: _tide_v1_TxnOffsetCommitRequest__Input, metadata: grpc.Metadata, callback: grpc.requestCallback<_tide_v1_TxnOffsetCommitResponse>): grpc.ClientUnaryCall;
  txnOffsetCommit(argument: _tide_v1_TxnOffsetCommitRequest__Input, options: grpc.CallOptions, callback: grpc.requestCallback<_tide_v1_TxnOffsetCommitResponse>): grpc.ClientUnaryCall;
  txnOffsetCommit(argument: _tide_v1_TxnOffsetCommitRequest__Input, callback: grpc.requestCallback<_tide_v1_TxnOffsetCommitResponse>): grpc.ClientUnaryCall;
  
}

export interface TransactionCoordinatorHandlers extends grpc.UntypedServiceImplementation {
  AddOffsetsToTxn: grpc.handleUnaryCall<_tide_v1_AddOffsetsToTxnRequest, _tide_v1_AddOffsetsToTxnResponse__Input>;
  
  AddPartitionsToTxn: grpc.handleUnaryCall<_tide_v1_AddPartitionsToTxnRequest, _tide_v1_AddPartitionsToTxnResponse__Input>;
  
  DescribeTransaction: grpc.handleUnaryCall<_tide_v1_DescribeTransactionRequest, _tide_v1_DescribeTransactionResponse__Input>;
  
  EndTxn: grpc.handleUnaryCall<_tide_v1_EndTxnRequest, _tide_v1_EndTxnResponse__Input>;
  
  EndTxnStream: grpc.handleBidiStreamingCall<_tide_v1_EndTxnStreamRequest, _tide_v1_EndTxnStreamResponse__Input>;
  
  FindTransactionCoordinator: grpc.handleUnaryCall<_tide_v1_FindTransactionCoordinatorRequest, _tide_v1_FindCoordinatorResponse__Input>;
  
  InitTransactions: grpc.handleUnaryCall<_tide_v1_InitTransactionsRequest, _tide_v1_InitTransactionsResponse__Input>;
  
  ListTransactions: grpc.handleUnaryCall<_tide_v1_ListTransactionsRequest, _tide_v1_ListTransactionsResponse__Input>;
  
  TxnOffsetCommit: grpc.handleUnaryCall<_tide_v1_TxnOffsetCommitRequest, _tide_v1_TxnOffsetCommitResponse__Input>;
  
}

export interface TransactionCoordinatorDefinition extends grpc.ServiceDefinition {
  AddOffsetsToTxn: MethodDefinition<_tide_v1_AddOffsetsToTxnRequest__Input, _tide_v1_AddOffsetsToTxnResponse__Input, _tide_v1_AddOffsetsToTxnRequest, _tide_v1_AddOffsetsToTxnResponse>
  AddPartitionsToTxn: MethodDefinition<_tide_v1_AddPartitionsToTxnRequest__Input, _tide_v1_AddPartitionsToTxnResponse__Input, _tide_v1_AddPartitionsToTxnRequest, _tide_v1_AddPartitionsToTxnResponse>
  DescribeTransaction: MethodDefinition<_tide_v1_DescribeTransactionRequest__Input, _tide_v1_DescribeTransactionResponse__Input, _tide_v1_DescribeTransactionRequest, _tide_v1_DescribeTransactionResponse>
  EndTxn: MethodDefinition<_tide_v1_EndTxnRequest__Input, _tide_v1_EndTxnResponse__Input, _tide_v1_EndTxnRequest, _tide_v1_EndTxnResponse>
  EndTxnStream: MethodDefinition<_tide_v1_EndTxnStreamRequest__Input, _tide_v1_EndTxnStreamResponse__Input, _tide_v1_EndTxnStreamRequest, _tide_v1_EndTxnStreamResponse>
  FindTransactionCoordinator: MethodDefinition<_tide_v1_FindTransactionCoordinatorRequest__Input, _tide_v1_FindCoordinatorResponse__Input, _tide_v1_FindTransactionCoordinatorRequest, _tide_v1_FindCoordinatorResponse>
  InitTransactions: MethodDefinition<_tide_v1_InitTransactionsRequest__Input, _tide_v1_InitTransactionsResponse__Input, _tide_v1_InitTransactionsRequest, _tide_v1_InitTransactionsResponse>
  ListTransactions: MethodDefinition<_tide_v1_ListTransactionsRequest__Input, _tide_v1_ListTransactionsResponse__Input, _tide_v1_ListTransactionsRequest, _tide_v1_ListTransactionsResponse>
  TxnOffsetCommit: MethodDefinition<_tide_v1_TxnOffsetCommitRequest__Input, _tide_v1_TxnOffsetCommitResponse__Input, _tide_v1_TxnOffsetCommitRequest, _tide_v1_TxnOffsetCommitResponse>
}
