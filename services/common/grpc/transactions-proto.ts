/**
 * The `tide.v1.TransactionCoordinator` service (public, one of PUBLIC_PROTO_FILES) and the two
 * internal services of transactions: `TxnMarkers` on partition leaders and `TxnOffsets` on the
 * coordinator of a consumer group (the transaction coordinator calls them), `TxnJoins` on the
 * transaction coordinator (partition leaders call it).
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_LOADER_OPTIONS, protoRoot, publicPackageDefinition } from './proto';
import type { ProtoGrpcType as TransactionsProto } from './generated/transactions';
import type { ProtoGrpcType as TxnMarkersProto } from './generated/txn_markers';
import type { ProtoGrpcType as TxnOffsetsProto } from './generated/txn_offsets';
import type { ProtoGrpcType as TxnJoinsProto } from './generated/txn_joins';

let cached: TransactionsProto['tide']['v1'] | undefined;

export function transactionsProto(): TransactionsProto['tide']['v1'] {
  cached ??= (grpc.loadPackageDefinition(publicPackageDefinition()) as unknown as TransactionsProto).tide.v1;
  return cached;
}

let cachedInternal: (TxnMarkersProto & TxnOffsetsProto & TxnJoinsProto)['tide']['v1']['internal'] | undefined;

export function txnInternalProto(): (TxnMarkersProto &
  TxnOffsetsProto &
  TxnJoinsProto)['tide']['v1']['internal'] {
  if (!cachedInternal) {
    const definition = protoLoader.loadSync(
      [
        'tide/v1/internal/txn_markers.proto',
        'tide/v1/internal/txn_offsets.proto',
        'tide/v1/internal/txn_joins.proto',
      ],
      { ...PROTO_LOADER_OPTIONS, includeDirs: [protoRoot()] },
    );
    cachedInternal = (
      grpc.loadPackageDefinition(definition) as unknown as TxnMarkersProto & TxnOffsetsProto & TxnJoinsProto
    ).tide.v1.internal;
  }
  return cachedInternal;
}
