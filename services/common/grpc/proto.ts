/**
 * Loads Tide's .proto files once and exposes typed service definitions and client constructors.
 * The loader options must match scripts/gen-protos.js so the generated types describe what
 * grpc-js actually hands to handlers: int64 as number, enums as strings, defaults filled in.
 */
import * as path from 'path';
import * as fs from 'fs';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as BrokerProto } from './generated/broker';
import type { ProtoGrpcType as AdminProto } from './generated/admin';

export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

/** The folder holding `tide/v1/*.proto`, found from both the TS sources and dist/. */
export function protoRoot(): string {
  for (const candidate of [
    path.join(__dirname, '..', '..', '..', 'protos'),
    path.join(__dirname, '..', '..', '..', '..', 'protos'),
  ]) {
    if (fs.existsSync(path.join(candidate, 'tide', 'v1', 'broker.proto'))) return candidate;
  }
  throw new Error(`Tide protos not found near ${__dirname}; the checkout or image is incomplete`);
}

/** Every client-facing proto file, relative to protoRoot(). */
export const PUBLIC_PROTO_FILES = [
  'tide/v1/common.proto',
  'tide/v1/broker.proto',
  'tide/v1/admin.proto',
  'tide/v1/coordinator.proto',
  'tide/v1/transactions.proto',
];

let cached: (BrokerProto & AdminProto) | undefined;
let cachedDefinition: protoLoader.PackageDefinition | undefined;

/** The package definition of the public protos (for server reflection and the loaders below). */
export function publicPackageDefinition(): protoLoader.PackageDefinition {
  if (!cachedDefinition) {
    cachedDefinition = protoLoader.loadSync(PUBLIC_PROTO_FILES, {
      ...PROTO_LOADER_OPTIONS,
      includeDirs: [protoRoot()],
    });
  }
  return cachedDefinition;
}

/** The `tide.v1` package: service definitions for servers, client constructors for clients. */
export function tideProto(): (BrokerProto & AdminProto)['tide']['v1'] {
  if (!cached)
    cached = grpc.loadPackageDefinition(publicPackageDefinition()) as unknown as BrokerProto & AdminProto;
  return cached.tide.v1;
}

import type { ProtoGrpcType as ControllerProto } from './generated/controller';
import type { ProtoGrpcType as ReplicationProto } from './generated/replication';

let cachedInternal: (ControllerProto & ReplicationProto) | undefined;

/** The services brokers and controllers call on each other (not part of the client API). */
export function internalProto(): {
  controller: ControllerProto['tide']['v1'];
  replication: ReplicationProto['tide']['v1']['internal'];
} {
  if (!cachedInternal) {
    const definition = protoLoader.loadSync(
      ['tide/v1/controller.proto', 'tide/v1/internal/replication.proto'],
      {
        ...PROTO_LOADER_OPTIONS,
        includeDirs: [protoRoot()],
      },
    );
    cachedInternal = grpc.loadPackageDefinition(definition) as unknown as ControllerProto & ReplicationProto;
  }
  return { controller: cachedInternal.tide.v1, replication: cachedInternal.tide.v1.internal };
}
