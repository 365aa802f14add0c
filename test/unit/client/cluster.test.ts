import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../../services/common/errors';
import { fromGrpcError, toGrpcStatus } from '../../../services/common/grpc/status';
import { Cluster } from '../../../client/cluster';
import { ConnectionPool, channelOptionsFor } from '../../../client/net/connection';
import { FakeCluster } from './fake-broker';

jest.setTimeout(15_000);

/** An address nothing listens on: a server bound, then shut down. */
async function deadAddress(): Promise<string> {
  const server = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  server.forceShutdown();
  return `127.0.0.1:${port}`;
}

describe('Cluster', () => {
  let fake: FakeCluster;
  const clusters: Cluster[] = [];

  beforeEach(async () => {
    fake = await FakeCluster.start(2);
    fake.createTopic('a', 2, 0);
    fake.createTopic('b', 1, 1);
  });

  afterEach(async () => {
    for (const c of clusters.splice(0)) c.close();
    await fake.stop();
  });

  function cluster(options: Partial<ConstructorParameters<typeof Cluster>[0]> = {}): Cluster {
    const c = new Cluster({ bootstrap: fake.bootstrap, unknownTopicWaitMs: 50, ...options });
    clusters.push(c);
    return c;
  }

  test('bootstraps past unreachable addresses and learns brokers and leaders', async () => {
    const dead = await deadAddress();
    const c = cluster({ bootstrap: [dead, fake.brokers[1].address] });
    await c.connect();
    expect(c.anyBroker()).toBe(fake.brokers[1].address);
    expect(
      c
        .knownBrokers()
        .map((b) => b.address)
        .sort(),
    ).toEqual(fake.bootstrap.sort());
    expect(await c.leaderAddress('a', 1)).toBe(fake.brokers[0].address);
    expect(await c.leaderAddress('b', 0)).toBe(fake.brokers[1].address);
    expect(await c.partitionCount('a')).toBe(2);
  });

  test('no reachable bootstrap broker: BROKER_NOT_AVAILABLE naming every address tried', async () => {
    const dead1 = await deadAddress();
    const dead2 = await deadAddress();
    const c = cluster({ bootstrap: [dead1, dead2], connectTimeoutMs: 2_000 });
    const err = (await c.connect().catch((e: unknown) => e)) as TideError;
    expect(err).toBeInstanceOf(TideError);
    expect(err.code).toBe('BROKER_NOT_AVAILABLE');
    expect(err.retriable).toBe(true);
    expect(err.message).toContain(dead1);
    expect(err.message).toContain(dead2);
  });

  test('auto routing stays direct when every advertised broker answers', async () => {
    const c = cluster({ bootstrap: [fake.brokers[1].address] });
    await c.connect();
    expect(c.routing).toBe('direct');
    expect(await c.leaderAddress('a', 0)).toBe(fake.brokers[0].address);
  });

  test('auto routing falls back to the bootstrap broker when an advertised broker is unreachable', async () => {
    await fake.brokers[0].stop(); // still advertised in metadata, like a pod behind a port-forward
    const c = cluster({ bootstrap: [fake.brokers[1].address] });
    await c.connect();
    expect(c.routing).toBe('bootstrap');
    expect(await c.leaderAddress('a', 0)).toBe(fake.brokers[1].address);
  });

  test('bootstrap routing sends every partition to the bootstrap broker', async () => {
    const c = cluster({ bootstrap: [fake.brokers[1].address], routing: 'bootstrap' });
    expect(await c.leaderAddress('a', 0)).toBe(fake.brokers[1].address);
    expect(await c.leaderAddress('b', 0)).toBe(fake.brokers[1].address);
  });

  test('metadata is cached until invalidated, then refetched', async () => {
    const c = cluster();
    await c.topicMetadata('a');
    const before = fake.metadataRequests;
    await c.topicMetadata('a');
    expect(fake.metadataRequests).toBe(before);
    fake.partition('a', 0).leader = 1;
    expect(c.leaderFor('a', 0)).toBe(fake.brokers[0].address); // stale until invalidated
    c.invalidate('a');
    await c.topicMetadata('a');
    expect(fake.metadataRequests).toBe(before + 1);
    expect(c.leaderFor('a', 0)).toBe(fake.brokers[1].address);
  });

  test('concurrent refreshes of a topic share one request', async () => {
    const c = cluster();
    await c.connect();
    const before = fake.metadataRequests;
    await Promise.all([c.refresh(['a']), c.refresh(['a']), c.refresh(['a'])]);
    expect(fake.metadataRequests).toBe(before + 1);
  });

  test('an unknown topic is retried briefly (a topic created a moment ago), then UNKNOWN_TOPIC', async () => {
    const c = cluster({ unknownTopicWaitMs: 1_000 });
    await c.connect();
    setTimeout(() => fake.createTopic('late', 1), 100);
    await expect(c.topicMetadata('late')).resolves.toMatchObject({ name: 'late' });
    await expect(cluster().topicMetadata('never')).rejects.toMatchObject({
      code: 'UNKNOWN_TOPIC',
      retriable: false,
    });
  });

  test('a partition the cached topic lacks is fetched again (added since), then UNKNOWN_PARTITION', async () => {
    const c = cluster({ unknownTopicWaitMs: 1_000 });
    const before = (await c.topicMetadata('a')).partitions.length;
    setTimeout(() => fake.growTopic('a', before + 1), 100);
    // The cache is fresh and names `before` partitions; the new one is waited for, not refused.
    await expect(c.topicWithPartition('a', before)).resolves.toMatchObject({ name: 'a' });
    expect(c.leaderFor('a', before)).toBe(fake.brokers[0].address);
    await expect(c.leaderAddress('a', before)).resolves.toBe(fake.brokers[0].address);
    await expect(cluster().topicWithPartition('a', 99)).rejects.toMatchObject({
      code: 'UNKNOWN_PARTITION',
      retriable: false,
    });
  });

  test('a partition without a leader is LEADER_NOT_AVAILABLE (retriable); a missing one UNKNOWN_PARTITION', async () => {
    const c = cluster();
    fake.partition('a', 1).leader = -1;
    await c.topicMetadata('a');
    expect(() => c.leaderFor('a', 1)).toThrow(
      expect.objectContaining({ code: 'LEADER_NOT_AVAILABLE', retriable: true }),
    );
    expect(() => c.leaderFor('a', 5)).toThrow(expect.objectContaining({ code: 'UNKNOWN_PARTITION' }));
  });

  test('control requests move on to another broker when theirs is down', async () => {
    const c = cluster({ bootstrap: [fake.brokers[0].address] });
    await c.connect();
    await fake.brokers[0].stop();
    const meta = await c.fetchMetadata(['a']);
    expect(meta.topics.map((t) => t.name)).toEqual(['a']);
    expect(c.anyBroker()).toBe(fake.brokers[1].address);
  });
});

describe('error mapping at the client edge', () => {
  test.each([
    ['NOT_LEADER', true],
    ['UNKNOWN_TOPIC', false],
    ['OFFSET_OUT_OF_RANGE', false],
    ['NOT_ENOUGH_REPLICAS', true],
  ] as const)('a %s status with trailers becomes a TideError (retriable %s)', (code, retriable) => {
    const status = toGrpcStatus(new TideError(code, 'what happened'));
    const err = fromGrpcError(Object.assign(new Error(status.details), status));
    expect(err).toMatchObject({ code, retriable, message: 'what happened' });
  });

  test('over the wire: trailers survive a real call', async () => {
    const fake = await FakeCluster.start(1);
    const c = new Cluster({ bootstrap: fake.bootstrap });
    try {
      await c.connect();
      const call = new Promise((resolve, reject) =>
        c.pool
          .broker(fake.brokers[0].address)
          .ListOffsets({ topic: 'missing', partition: 0 }, (e, r) => (e ? reject(e) : resolve(r))),
      );
      const err = fromGrpcError(await call.catch((e: unknown) => e));
      expect(err).toMatchObject({
        code: 'UNKNOWN_TOPIC',
        retriable: false,
        message: 'topic missing does not exist',
      });
    } finally {
      c.close();
      await fake.stop();
    }
  });
});

describe('channel options', () => {
  test('large flow-control window and message limits by default, overridable', () => {
    const o = channelOptionsFor();
    expect(o['grpc-node.flow_control_window']).toBe(16 * 1024 * 1024);
    expect(o['grpc.max_send_message_length']).toBe(64 * 1024 * 1024);
    // Responses are unlimited: a fetch of any batch the broker accepted must be readable.
    expect(o['grpc.max_receive_message_length']).toBe(-1);
    expect(o['grpc.keepalive_time_ms']).toBeGreaterThan(0);
    const custom = channelOptionsFor({
      flowControlWindowBytes: 1 << 20,
      channelOptions: { 'grpc.keepalive_time_ms': 5 },
    });
    expect(custom['grpc-node.flow_control_window']).toBe(1 << 20);
    expect(custom['grpc.keepalive_time_ms']).toBe(5);
  });
});

describe('connection pool', () => {
  test('fetch streams never share a connection with produce and control calls', () => {
    // Node's HTTP/2 stops reading while it writes: bulk data both ways on one connection can stall
    // it until keepalive drops it (connection.ts header).
    for (const channelsPerBroker of [1, 2, 3]) {
      const pool = new ConnectionPool({ channelsPerBroker });
      const address = '127.0.0.1:9';
      const control = [0, 1, 2].map((lane) => pool.broker(address, lane).getChannel());
      const fetch = pool.fetchBroker(address).getChannel();
      for (const channel of control) expect(fetch).not.toBe(channel);
      expect(pool.fetchBroker(address).getChannel()).toBe(fetch);
      expect(pool.admin(address).getChannel()).toBe(control[0]);
      pool.closeAddress(address);
      expect(fetch.getConnectivityState(false)).toBe(grpc.connectivityState.SHUTDOWN);
      expect(control[0].getConnectivityState(false)).toBe(grpc.connectivityState.SHUTDOWN);
      expect(pool.addresses()).toEqual([]);
      pool.close();
    }
  });
});
