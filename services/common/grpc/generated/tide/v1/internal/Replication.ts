// Original file: protos/tide/v1/internal/replication.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ReplicaFetchRequest__Input as _tide_v1_internal_ReplicaFetchRequest__Input, ReplicaFetchRequest as _tide_v1_internal_ReplicaFetchRequest } from '../../../tide/v1/internal/ReplicaFetchRequest';
import type { ReplicaFetchResponse__Input as _tide_v1_internal_ReplicaFetchResponse__Input, ReplicaFetchResponse as _tide_v1_internal_ReplicaFetchResponse } from '../../../tide/v1/internal/ReplicaFetchResponse';

export interface ReplicationClient extends grpc.Client {
  Replicate(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_ReplicaFetchRequest__Input, _tide_v1_internal_ReplicaFetchResponse>;
  Replicate(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_ReplicaFetchRequest__Input, _tide_v1_internal_ReplicaFetchResponse>;
  replicate(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_ReplicaFetchRequest__Input, _tide_v1_internal_ReplicaFetchResponse>;
  replicate(options?: grpc.CallOptions): grpc.ClientDuplexStream<_tide_v1_internal_ReplicaFetchRequest__Input, _tide_v1_internal_ReplicaFetchResponse>;
  
}

export interface ReplicationHandlers extends grpc.UntypedServiceImplementation {
  Replicate: grpc.handleBidiStreamingCall<_tide_v1_internal_ReplicaFetchRequest, _tide_v1_internal_ReplicaFetchResponse__Input>;
  
}

export interface ReplicationDefinition extends grpc.ServiceDefinition {
  Replicate: MethodDefinition<_tide_v1_internal_ReplicaFetchRequest__Input, _tide_v1_internal_ReplicaFetchResponse__Input, _tide_v1_internal_ReplicaFetchRequest, _tide_v1_internal_ReplicaFetchResponse>
}
