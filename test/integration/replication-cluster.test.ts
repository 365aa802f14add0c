/**
 * Three real BrokerNodes in this process, talking gRPC to each other (Replicate streams) and to
 * the test (Produce), on one embedded metadata store. The ISR changes the leaders propose are
 * applied by a small compare-and-swap stand-in for the controller's AlterPartition (validated on
 * leader and partition epochs, as the controller does), and reach every broker through the
 * metadata watch like any partition state.
 *
 * - Records acknowledged with acks=all are on every ISR replica (the logs are compared byte for
 *   byte after a clean stop).
 * - A follower whose replication is held back leaves the ISR after replica.lag.time.max.ms,
 *   acks=all writes go on with min.insync.replicas=2, and once released it catches up and is
 *   added back to the ISR.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { systemClock } from '../../services/common/clock';
import { TideError } from '../../services/common/errors';
import { silentLogger } from '../../services/common/logger';
import { EmbeddedMetadataStore } from '../../services/common/metadata/embedded';
import {
  MetadataKeys,
  decodePartitionState,
  encodePartitionState,
  type PartitionState,
} from '../../services/common/metadata/keys';
import { tideProto } from '../../services/common/grpc/proto';
import type { ProduceResponse } from '../../services/common/grpc/generated/tide/v1/ProduceResponse';
import { ensureClusterId } from '../../services/common/cluster/cluster-id';
import { BrokerRegistry } from '../../services/common/cluster/broker-registry';
import { TopicManager } from '../../services/controller/topic-manager';
import { topicAdmin } from '../../services/controller/topic-admin';
import { ProducerIdAllocator } from '../../services/common/cluster/producer-ids';
import { BrokerNode } from '../../services/broker/broker-node';
import { BROKER_CONFIG_SCHEMA, type BrokerConfig } from '../../services/broker/config';
import { loadConfig } from '../../services/common/config';
import type { IsrProposer } from '../../services/broker/partition/partition';
import { grpcConnector } from '../../services/broker/replication/grpc-session';
import type { ReplicationConnector } from '../../services/broker/replication/session';
import { openPartitionLog } from '../../services/broker/log/partition-log';
import { toLogConfig } from '../../services/broker/partition/log-config';
import { decodeRecords } from '../../services/common/records';

jest.setTimeout(60_000);

const CLUSTER = 'repl';
const LAG_MS = 1_000;
const keys = new MetadataKeys(CLUSTER);
const logger = silentLogger();

let root: string;
let store: EmbeddedMetadataStore;
let topics: TopicManager;
const nodes = new Map<number, BrokerNode>();
/** Followers whose outgoing replication fetches are held back. */
const held = new Set<number>();
const releases = new Map<number, (() => void)[]>();

/** gRPC replication whose fetches wait while the follower is in `held` (a paused follower). */
function holdable(brokerId: number): ReplicationConnector {
  const real = grpcConnector();
  return (leader) => {
    const session = real(leader);
    return {
      async fetch(request) {
        while (held.has(brokerId)) {
          await new Promise<void>((resolve) =>
            releases.set(brokerId, [...(releases.get(brokerId) ?? []), resolve]),
          );
        }
        return session.fetch(request);
      },
      close: () => session.close(),
    };
  };
}

function release(brokerId: number): void {
  held.delete(brokerId);
  for (const wake of releases.get(brokerId) ?? []) wake();
  releases.delete(brokerId);
}

/** The controller's AlterPartition, reduced to its check and its fenced write. */
const proposer: IsrProposer = {
  async alterPartition(request) {
    const key = keys.partition(request.topic, request.partition);
    const kv = await store.get(key);
    if (!kv) throw new TideError('UNKNOWN_TOPIC', `no partition ${key}`);
    const current = decodePartitionState(kv.value, key);
    if (current.leaderEpoch !== request.leaderEpoch || current.partitionEpoch !== request.partitionEpoch) {
      throw new TideError('FENCED_EPOCH', `stale epochs for ${key}`);
    }
    const next: PartitionState = {
      ...current,
      isr: [...request.newIsr],
      partitionEpoch: current.partitionEpoch + 1,
    };
    const result = await store.txn(
      [{ key, target: 'modRevision', op: '=', value: kv.modRevision }],
      [{ type: 'put', key, value: encodePartitionState(next) }],
    );
    if (!result.succeeded) throw new TideError('FENCED_EPOCH', `concurrent change of ${key}`);
    return next;
  },
};

async function startBroker(id: number): Promise<BrokerNode> {
  const config: BrokerConfig = {
    ...loadConfig(BROKER_CONFIG_SCHEMA, {}),
    brokerId: id,
    port: 0,
    dataDir: path.join(root, `broker-${id}`),
    clusterName: CLUSTER,
  };
  await fs.mkdir(config.dataDir, { recursive: true });
  const node = await BrokerNode.start(config, {
    store,
    clock: systemClock,
    logger,
    clusterId: 'test-cluster',
    topics,
    topicAdmin: topicAdmin(topics),
    producerIds: new ProducerIdAllocator({ store, clusterName: CLUSTER, logger }),
    controllerId: () => 0,
    isrProposer: proposer,
    replication: { replicaLagTimeMaxMs: LAG_MS, replicaFetchWaitMaxMs: 100, replicaFetchBackoffMs: 50 },
    replicationConnector: holdable(id),
  });
  nodes.set(id, node);
  return node;
}

async function partitionState(topic: string, partition = 0): Promise<PartitionState> {
  const key = keys.partition(topic, partition);
  return decodePartitionState((await store.get(key))!.value, key);
}

async function eventually(
  condition: () => Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function produce(node: BrokerNode, topic: string, values: string[]): Promise<ProduceResponse> {
  const client = new (tideProto().Broker)(node.address, grpc.credentials.createInsecure());
  return new Promise<ProduceResponse>((resolve, reject) =>
    client.Produce(
      {
        topic,
        partition: 0,
        acks: 'ACKS_ALL',
        timeout_ms: 20_000,
        records: values.map((v) => ({ value: Buffer.from(v) })),
      },
      (err, response) => {
        client.close();
        if (err) reject(err);
        else resolve(response!);
      },
    ),
  );
}

/** The values in a stopped broker's copy of topic-0, and the raw bytes. */
async function replicaContents(id: number, topic: string): Promise<{ values: string[]; bytes: Buffer }> {
  const log = await openPartitionLog({
    dataDir: path.join(root, `broker-${id}`),
    topic,
    partition: 0,
    config: toLogConfig({}),
    clock: systemClock,
    logger,
  });
  try {
    const parts: Buffer[] = [];
    for (let offset = log.logStartOffset; offset < log.logEndOffset;) {
      const { batches, nextOffset } = await log.read(offset, 1 << 20);
      if (batches.length === 0) break;
      parts.push(batches);
      offset = nextOffset;
    }
    const bytes = Buffer.concat(parts);
    return { values: decodeRecords(bytes).map((r) => r.value!.toString()), bytes };
  } finally {
    await log.close();
  }
}

async function stopAll(): Promise<void> {
  for (const id of [...held]) release(id);
  for (const node of nodes.values()) await node.stop();
  nodes.clear();
}

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'tide-repl-'));
  store = new EmbeddedMetadataStore({ clock: systemClock });
  await ensureClusterId(store, CLUSTER);
  const registry = new BrokerRegistry({ store, clusterName: CLUSTER, clock: systemClock, logger });
  topics = new TopicManager({
    store,
    clusterName: CLUSTER,
    clock: systemClock,
    logger,
    defaultReplicationFactor: 3,
    liveBrokers: registry,
  });
  for (const id of [0, 1, 2]) await startBroker(id);
});

afterEach(async () => {
  await stopAll();
  await store.close();
  await fs.rm(root, { recursive: true, force: true });
});

test('records produced with acks=all are on every ISR replica', async () => {
  await topics.createTopic({
    name: 'acked',
    partitions: 1,
    replicationFactor: 3,
    configs: { 'min.insync.replicas': '2' },
  });
  const initial = await partitionState('acked');
  expect(initial.isr.sort()).toEqual([0, 1, 2]);
  const leader = nodes.get(initial.leader)!;
  await eventually(async () => {
    try {
      await produce(leader, 'acked', ['warm-up']);
      return true;
    } catch {
      return false; // the leader may not have applied the new topic yet
    }
  }, 'the leader to accept writes');
  const acked: string[] = ['warm-up'];
  for (let round = 0; round < 20; round++) {
    const values = Array.from({ length: 5 }, (_, i) => `r${round}-${i}`);
    const response = await produce(leader, 'acked', values);
    expect(response.last_offset - response.base_offset).toBe(4);
    acked.push(...values);
  }
  const isr = (await partitionState('acked')).isr;
  await stopAll();
  const leaderCopy = await replicaContents(initial.leader, 'acked');
  expect(leaderCopy.values).toEqual(acked);
  for (const id of isr) {
    const copy = await replicaContents(id, 'acked');
    expect(copy.values.slice(0, acked.length)).toEqual(acked);
    expect(copy.bytes.equals(leaderCopy.bytes)).toBe(true);
  }
});

test('a lagging follower is dropped from the ISR, writes go on, and it rejoins once caught up', async () => {
  await topics.createTopic({
    name: 'lag',
    partitions: 1,
    replicationFactor: 3,
    configs: { 'min.insync.replicas': '2' },
  });
  const initial = await partitionState('lag');
  const leader = nodes.get(initial.leader)!;
  const laggard = initial.replicas.find((id) => id !== initial.leader)!;
  await eventually(async () => {
    try {
      await produce(leader, 'lag', ['first']);
      return true;
    } catch {
      return false;
    }
  }, 'the leader to accept writes');

  held.add(laggard);
  const startedMs = Date.now();
  // This write waits for the laggard until the leader drops it from the ISR (2 of 3 remain >= 2).
  await produce(leader, 'lag', ['while-lagging']);
  expect(Date.now() - startedMs).toBeGreaterThanOrEqual(LAG_MS - 100);
  const shrunk = await partitionState('lag');
  expect(shrunk.isr).not.toContain(laggard);
  expect(shrunk.isr).toHaveLength(2);
  expect(shrunk.partitionEpoch).toBeGreaterThan(initial.partitionEpoch);
  expect(shrunk.leaderEpoch).toBe(initial.leaderEpoch);
  for (let i = 0; i < 10; i++) await produce(leader, 'lag', [`more-${i}`]); // quick: no waiting for the laggard

  release(laggard);
  await eventually(
    async () => (await partitionState('lag')).isr.includes(laggard),
    'the laggard to rejoin the ISR',
  );
  await produce(leader, 'lag', ['after']);
  await stopAll();
  const expected = ['first', 'while-lagging', ...Array.from({ length: 10 }, (_, i) => `more-${i}`), 'after'];
  for (const id of [0, 1, 2]) expect((await replicaContents(id, 'lag')).values).toEqual(expected);
});

test('a leader change through metadata: the new leader serves at once, the old one returns as follower', async () => {
  await topics.createTopic({
    name: 'move',
    partitions: 1,
    replicationFactor: 3,
    configs: { 'min.insync.replicas': '2' },
  });
  const initial = await partitionState('move');
  const oldLeader = initial.leader;
  await eventually(async () => {
    try {
      await produce(nodes.get(oldLeader)!, 'move', ['a']);
      return true;
    } catch {
      return false;
    }
  }, 'the leader to accept writes');
  await produce(nodes.get(oldLeader)!, 'move', ['b', 'c']);

  // The old leader goes away; the "controller" elects another ISR member at the next epoch.
  await nodes.get(oldLeader)!.stop();
  nodes.delete(oldLeader);
  const newLeader = initial.isr.find((id) => id !== oldLeader)!;
  const key = keys.partition('move', 0);
  const next: PartitionState = {
    ...initial,
    leader: newLeader,
    leaderEpoch: initial.leaderEpoch + 1,
    partitionEpoch: initial.partitionEpoch + 1,
    isr: initial.isr.filter((id) => id !== oldLeader),
  };
  await store.put(key, encodePartitionState(next));
  await eventually(async () => {
    try {
      await produce(nodes.get(newLeader)!, 'move', ['d']);
      return true;
    } catch {
      return false;
    }
  }, 'the new leader to accept writes');

  // The old leader restarts: a follower now; it catches up and the new leader adds it back.
  await startBroker(oldLeader);
  await eventually(
    async () => (await partitionState('move')).isr.includes(oldLeader),
    'the old leader to rejoin the ISR',
  );
  await produce(nodes.get(newLeader)!, 'move', ['e']);
  await stopAll();
  for (const id of [0, 1, 2])
    expect((await replicaContents(id, 'move')).values).toEqual(['a', 'b', 'c', 'd', 'e']);
});
