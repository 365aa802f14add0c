/**
 * The `tide.v1.StreamsQuery` service (streams.proto): served by streams application instances,
 * not by Tide's services, so it is kept out of PUBLIC_PROTO_FILES (a broker's reflection does not
 * list it); an instance's query server reflects this definition instead.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_LOADER_OPTIONS, protoRoot } from './proto';
import type { ProtoGrpcType } from './generated/streams';

let definition: protoLoader.PackageDefinition | undefined;
let cached: ProtoGrpcType['tide']['v1'] | undefined;

export function streamsPackageDefinition(): protoLoader.PackageDefinition {
  definition ??= protoLoader.loadSync(['tide/v1/streams.proto'], {
    ...PROTO_LOADER_OPTIONS,
    includeDirs: [protoRoot()],
  });
  return definition;
}

export function streamsProto(): ProtoGrpcType['tide']['v1'] {
  cached ??= (grpc.loadPackageDefinition(streamsPackageDefinition()) as unknown as ProtoGrpcType).tide.v1;
  return cached;
}
