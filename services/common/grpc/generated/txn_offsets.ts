import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { CompleteTxnOffsetsRequest__Input as _tide_v1_internal_CompleteTxnOffsetsRequest__Input, CompleteTxnOffsetsRequest as _tide_v1_internal_CompleteTxnOffsetsRequest } from './tide/v1/internal/CompleteTxnOffsetsRequest';
import type { CompleteTxnOffsetsResponse__Input as _tide_v1_internal_CompleteTxnOffsetsResponse__Input, CompleteTxnOffsetsResponse as _tide_v1_internal_CompleteTxnOffsetsResponse } from './tide/v1/internal/CompleteTxnOffsetsResponse';
import type { TxnOffsetsClient as _tide_v1_internal_TxnOffsetsClient, TxnOffsetsDefinition as _tide_v1_internal_TxnOffsetsDefinition } from './tide/v1/internal/TxnOffsets';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  tide: {
    v1: {
      internal: {
        CompleteTxnOffsetsRequest: MessageTypeDefinition<_tide_v1_internal_CompleteTxnOffsetsRequest__Input, _tide_v1_internal_CompleteTxnOffsetsRequest>
        CompleteTxnOffsetsResponse: MessageTypeDefinition<_tide_v1_internal_CompleteTxnOffsetsResponse__Input, _tide_v1_internal_CompleteTxnOffsetsResponse>
        TxnOffsets: SubtypeConstructor<typeof grpc.Client, _tide_v1_internal_TxnOffsetsClient> & { service: _tide_v1_internal_TxnOffsetsDefinition }
      }
    }
  }
}

