/**
 * Continuous balancing on real processes: 3 brokers with topics, then a 4th joins; the controller
 * (balancerEnabled) moves replicas and preferred leaders onto it until replica and leader counts
 * are within the threshold, and no partition's ISR is ever seen below min.insync.replicas.
 */
import { Tide } from '../../client';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';

jest.setTimeout(240_000);

let cluster: TestCluster;
let tide: Tide;

beforeAll(async () => {
  cluster = await TestCluster.start({
    brokers: 3,
    controllers: 1,
    leaseTtlMs: 2_000,
    controllerEnv: {
      TIDE_BALANCER_ENABLED: 'true',
      TIDE_BALANCER_THRESHOLD_PERCENT: '10',
      TIDE_LEADER_IMBALANCE_CHECK_INTERVAL_MS: '1000',
      TIDE_REASSIGNMENT_CHECK_INTERVAL_MS: '200',
    },
  });
  tide = new Tide({ bootstrap: cluster.bootstrap() });
});

afterAll(async () => {
  await tide?.close();
  await cluster?.stop();
});

function spread(counts: Map<number, number>, ids: number[]): number {
  const values = ids.map((id) => counts.get(id) ?? 0);
  return Math.max(...values) - Math.min(...values);
}

test('a 4th broker gets its share of replicas and leaders, never below min.insync.replicas', async () => {
  const admin = tide.admin();
  for (const name of ['bal-a', 'bal-b'])
    await admin.createTopic(name, {
      partitions: 6,
      replicationFactor: 2,
      configs: { 'min.insync.replicas': '2' },
    });
  const producer = tide.producer({ acks: 'all' });
  for (const name of ['bal-a', 'bal-b'])
    await producer.send(
      name,
      Array.from({ length: 600 }, (_, i) => ({ value: `v${i}`, partition: i % 6 })),
    );

  await cluster.startBroker(3);
  const ids = [0, 1, 2, 3];
  let belowMinIsr = 0;
  await waitFor(
    async () => {
      const meta = await admin.metadata(['bal-a', 'bal-b']);
      const replicas = new Map<number, number>();
      const leaders = new Map<number, number>();
      for (const t of meta.topics)
        for (const p of t.partitions) {
          if (p.isr.length < 2) belowMinIsr++;
          for (const id of p.replicas) replicas.set(id, (replicas.get(id) ?? 0) + 1);
          leaders.set(p.leader, (leaders.get(p.leader) ?? 0) + 1);
        }
      // 24 replicas over 4 brokers (6 each, threshold 1); 12 leaders (3 each, threshold 1).
      return spread(replicas, ids) <= 1 && spread(leaders, ids) <= 1;
    },
    { what: 'replica and leader counts within the threshold', timeoutMs: 180_000, intervalMs: 200 },
  );
  expect(belowMinIsr).toBe(0);
  // Nothing was lost by the moves.
  await producer.send('bal-a', [{ value: 'after', partition: 0 }]);
  await producer.close();
  const consumer = tide.consumer();
  let total = 0;
  for (let partition = 0; partition < 6; partition++)
    total += (await consumer.listOffset({ topic: 'bal-b', partition }, 'latest')).offset;
  await consumer.close();
  expect(total).toBe(600);
});
