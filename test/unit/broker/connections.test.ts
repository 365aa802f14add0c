/**
 * A broker's own calls to another broker that carry bulk data opposite ways — forwarded produce
 * requests (proxy routing) one way, forwarded fetches and replication fetches the other — go on
 * TCP connections of their own: Node's HTTP/2 can stall a connection loaded both ways
 * (ownConnectionChannelOptions). A real gRPC server on loopback names each call's peer
 * (`host:port` of the caller's socket), which tells the connections apart.
 */
import * as grpc from '@grpc/grpc-js';
import { LeaderForwarder } from '../../../services/broker/api/forward';
import type { MetadataView } from '../../../services/broker/api/registry';
import { grpcConnector } from '../../../services/broker/replication/grpc-session';
import { internalProto, tideProto } from '../../../services/common/grpc/proto';

const peers: Record<string, string[]> = { produce: [], fetch: [], replicate: [] };
let server: grpc.Server;
let port: number;

beforeAll(async () => {
  server = new grpc.Server();
  server.addService(tideProto().Broker.service, {
    Produce: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      peers.produce.push(call.getPeer());
      cb(null, {});
    },
    Fetch: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      peers.fetch.push(call.getPeer());
      cb(null, {});
    },
  } as grpc.UntypedServiceImplementation);
  server.addService(internalProto().replication.Replication.service, {
    Replicate: (call: grpc.ServerDuplexStream<unknown, unknown>) => {
      peers.replicate.push(call.getPeer());
      call.on('data', () => call.write({}));
      call.on('end', () => call.end());
    },
  } as grpc.UntypedServiceImplementation);
  port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
});

afterAll(() => server.forceShutdown());

function metadataLedAt(leaderPort: number): MetadataView {
  return {
    clusterId: () => 'c',
    controllerId: () => 1,
    brokers: () => [{ id: 2, host: '127.0.0.1', port: leaderPort }],
    topics: () => [{ name: 't', partitions: [{ partition: 0, leader: 2 }] }],
    onChange: () => () => undefined,
  };
}

test('forwarded produce, forwarded fetch and replication each get a connection of their own', async () => {
  const forwarder = new LeaderForwarder(metadataLedAt(port));
  const session = grpcConnector()({ id: 2, host: '127.0.0.1', port });
  try {
    await forwarder.produce({ topic: 't', partition: 0 } as never, 1_000);
    await forwarder.produce({ topic: 't', partition: 0 } as never, 1_000);
    await forwarder.fetch({ topic: 't', partition: 0, offset: 0 }, 100);
    await forwarder.fetch({ topic: 't', partition: 0, offset: 0 }, 100);
    await session.fetch({ replica_id: 1, broker_epoch: 1, partitions: [], max_wait_ms: 0, max_bytes: 0 });
    // The same kind of call reuses its connection (so a peer does name a connection)...
    expect(new Set(peers.produce).size).toBe(1);
    expect(new Set(peers.fetch).size).toBe(1);
    // ...and the three kinds are on three.
    expect(new Set([peers.produce[0], peers.fetch[0], peers.replicate[0]]).size).toBe(3);
  } finally {
    session.close();
    forwarder.close();
  }
});
