/**
 * The `tide.v1.GroupCoordinator` service definition and client constructor, loaded from the public
 * package definition (coordinator.proto is one of PUBLIC_PROTO_FILES, so reflection lists it).
 */
import * as grpc from '@grpc/grpc-js';
import { publicPackageDefinition } from './proto';
import type { ProtoGrpcType } from './generated/coordinator';

let cached: ProtoGrpcType['tide']['v1'] | undefined;

export function coordinatorProto(): ProtoGrpcType['tide']['v1'] {
  cached ??= (grpc.loadPackageDefinition(publicPackageDefinition()) as unknown as ProtoGrpcType).tide.v1;
  return cached;
}
