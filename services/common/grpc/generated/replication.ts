import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { EpochEndOffset__Input as _tide_v1_internal_EpochEndOffset__Input, EpochEndOffset as _tide_v1_internal_EpochEndOffset } from './tide/v1/internal/EpochEndOffset';
import type { ReplicaFetchPartition__Input as _tide_v1_internal_ReplicaFetchPartition__Input, ReplicaFetchPartition as _tide_v1_internal_ReplicaFetchPartition } from './tide/v1/internal/ReplicaFetchPartition';
import type { ReplicaFetchPartitionResponse__Input as _tide_v1_internal_ReplicaFetchPartitionResponse__Input, ReplicaFetchPartitionResponse as _tide_v1_internal_ReplicaFetchPartitionResponse } from './tide/v1/internal/ReplicaFetchPartitionResponse';
import type { ReplicaFetchRequest__Input as _tide_v1_internal_ReplicaFetchRequest__Input, ReplicaFetchRequest as _tide_v1_internal_ReplicaFetchRequest } from './tide/v1/internal/ReplicaFetchRequest';
import type { ReplicaFetchResponse__Input as _tide_v1_internal_ReplicaFetchResponse__Input, ReplicaFetchResponse as _tide_v1_internal_ReplicaFetchResponse } from './tide/v1/internal/ReplicaFetchResponse';
import type { ReplicationClient as _tide_v1_internal_ReplicationClient, ReplicationDefinition as _tide_v1_internal_ReplicationDefinition } from './tide/v1/internal/Replication';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  tide: {
    v1: {
      internal: {
        EpochEndOffset: MessageTypeDefinition<_tide_v1_internal_EpochEndOffset__Input, _tide_v1_internal_EpochEndOffset>
        ReplicaFetchPartition: MessageTypeDefinition<_tide_v1_internal_ReplicaFetchPartition__Input, _tide_v1_internal_ReplicaFetchPartition>
        ReplicaFetchPartitionResponse: MessageTypeDefinition<_tide_v1_internal_ReplicaFetchPartitionResponse__Input, _tide_v1_internal_ReplicaFetchPartitionResponse>
        ReplicaFetchRequest: MessageTypeDefinition<_tide_v1_internal_ReplicaFetchRequest__Input, _tide_v1_internal_ReplicaFetchRequest>
        ReplicaFetchResponse: MessageTypeDefinition<_tide_v1_internal_ReplicaFetchResponse__Input, _tide_v1_internal_ReplicaFetchResponse>
        Replication: SubtypeConstructor<typeof grpc.Client, _tide_v1_internal_ReplicationClient> & { service: _tide_v1_internal_ReplicationDefinition }
      }
    }
  }
}

