/**
 * Every RPC of every service in protos/, loaded with proto-loader from whatever .proto files
 * exist, so tests that must cover every RPC see a new one as soon as its proto lands.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_LOADER_OPTIONS, protoRoot } from '../../services/common/grpc/proto';

export interface ProtoMethod {
  /** gRPC path, e.g. /tide.v1.Broker/Produce. */
  path: string;
  service: string;
  name: string;
  requestStream: boolean;
  responseStream: boolean;
  /** The package definition entry (serializers) for building a client. */
  definition: protoLoader.MethodDefinition<object, object>;
}

export function protoFiles(): string[] {
  const root = protoRoot();
  return (fs.readdirSync(path.join(root, 'tide'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.proto'))
    .map((f) => path.join('tide', f))
    .sort();
}

export function allProtoMethods(): ProtoMethod[] {
  const definition = protoLoader.loadSync(protoFiles(), {
    ...PROTO_LOADER_OPTIONS,
    includeDirs: [protoRoot()],
  });
  const methods: ProtoMethod[] = [];
  for (const [service, entry] of Object.entries(definition)) {
    if ('format' in entry) continue; // a message or enum, not a service
    for (const [name, method] of Object.entries(entry as protoLoader.ServiceDefinition)) {
      methods.push({
        path: method.path,
        service,
        name,
        requestStream: method.requestStream,
        responseStream: method.responseStream,
        definition: method as protoLoader.MethodDefinition<object, object>,
      });
    }
  }
  return methods;
}
