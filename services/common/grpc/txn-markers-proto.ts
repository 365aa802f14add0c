/**
 * The `tide.v1.internal.TxnMarkers` service (protos/tide/v1/internal/txn_markers.proto): served by
 * every broker, called by the transaction coordinator. Loaded on its own so neither side needs the
 * other internal services.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as TxnMarkersProto } from './generated/txn_markers';
import { PROTO_LOADER_OPTIONS, protoRoot } from './proto';

let cached: TxnMarkersProto | undefined;

export function txnMarkersProto(): TxnMarkersProto['tide']['v1']['internal'] {
  if (!cached) {
    const definition = protoLoader.loadSync(['tide/v1/internal/txn_markers.proto'], {
      ...PROTO_LOADER_OPTIONS,
      includeDirs: [protoRoot()],
    });
    cached = grpc.loadPackageDefinition(definition) as unknown as TxnMarkersProto;
  }
  return cached.tide.v1.internal;
}
