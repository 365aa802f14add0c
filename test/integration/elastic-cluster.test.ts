/**
 * Elastic clusters on real processes and real etcd (3 brokers, 1 controller): a topic grows from
 * 3 to 6 partitions while a keyed producer runs (the producer picks the new partitions up from the
 * metadata watch, nothing is lost), then a partition's replicas move from one broker set to
 * another with acks=all writes before and after (the move completes, the removed replica is
 * dropped, every acknowledged record reads back).
 */
import { Tide } from '../../client';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';
import { runCli } from '../harness/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

jest.setTimeout(180_000);

let cluster: TestCluster;
let tide: Tide;

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 3, controllers: 1, leaseTtlMs: 2_000 });
  // Offsets replicated twice, so decommissioning one of the 3 brokers has somewhere to move them.
  await cluster.startCoordinator('c1', {
    args: ['--offsets-partitions', '4'],
    env: { TIDE_OFFSETS_TOPIC_REPLICATION_FACTOR: '2' },
  });
  tide = new Tide({ bootstrap: cluster.bootstrap() });
});

afterAll(async () => {
  await tide?.close();
  await cluster?.stop();
});

async function readAll(topic: string, partitions: number, expected: number): Promise<string[]> {
  const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  consumer.assign(Array.from({ length: partitions }, (_, partition) => ({ topic, partition })));
  await consumer.seekToBeginning();
  const seen: string[] = [];
  await waitFor(
    async () => {
      for await (const batch of consumer.batches()) {
        for (const r of batch.records) seen.push(r.value!.toString());
        if (seen.length >= expected) break;
      }
      return seen.length >= expected;
    },
    { what: `${expected} records of ${topic}`, timeoutMs: 60_000 },
  );
  await consumer.close();
  return seen;
}

test('grow a topic 3 -> 6 while a keyed producer runs; growing never shrinks', async () => {
  const admin = tide.admin();
  await admin.createTopic('grow', { partitions: 3, replicationFactor: 2 });
  const group = tide.consumer({ groupId: 'g-grow', autoOffsetReset: 'earliest', sessionTimeoutMs: 6_000 });
  group.subscribe(['grow']);
  const consumed = new Set<string>();
  // An error that ends the group's iteration fails the test at once, naming it (it used to end
  // the loop silently, and the test then timed out waiting for records nobody was reading).
  let stopped: unknown;
  void (async () => {
    for await (const r of group) consumed.add(r.value!.toString());
  })().catch((err: unknown) => (stopped = err));
  const producer = tide.producer({ acks: 'all' });
  const before = await producer.send(
    'grow',
    Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, value: `a${i}` })),
  );
  expect(before.count).toBe(300);

  await expect(admin.createPartitions('grow', 3)).rejects.toMatchObject({ code: 'INVALID_PARTITIONS' });
  const grown = await admin.createPartitions('grow', 6);
  expect(grown.partitions).toHaveLength(6);

  // The producer learns the new count from the metadata watch: keys hash over 6 partitions.
  const used = new Set<number>();
  await waitFor(
    async () => {
      const sent = await producer.send(
        'grow',
        Array.from({ length: 60 }, (_, i) => ({ key: `k${i}`, value: `b${used.size}-${i}` })),
      );
      for (const p of sent.partitions) used.add(p);
      return [3, 4, 5].some((p) => used.has(p));
    },
    { what: 'keyed records reaching the new partitions', timeoutMs: 30_000 },
  );
  await producer.close();
  const end = await Promise.all(
    [0, 1, 2, 3, 4, 5].map(async (partition) => {
      const c = tide.consumer();
      const o = await c.listOffset({ topic: 'grow', partition }, 'latest');
      await c.close();
      return o.offset;
    }),
  );
  expect(end.slice(3).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  const total = end.reduce((a, b) => a + b, 0);
  const records = await readAll('grow', 6, total);
  for (let i = 0; i < 300; i++) expect(records).toContain(`a${i}`);
  // The group covers all 6 partitions and has consumed every record, old and new partitions alike.
  await waitFor(
    () => stopped !== undefined || (group.assignment().length === 6 && records.every((v) => consumed.has(v))),
    { what: 'the group to cover 6 partitions and read every record', timeoutMs: 60_000 },
  );
  expect(stopped).toBeUndefined();
  await group.close();
});

test('move a partition to other brokers under acks=all writes', async () => {
  const admin = tide.admin();
  await admin.createTopic('move', {
    partitions: 1,
    replicationFactor: 2,
    configs: { 'min.insync.replicas': '2' },
  });
  const meta = await admin.metadata(['move']);
  const from = meta.topics[0].partitions[0].replicas;
  const spare = [0, 1, 2].find((id) => !from.includes(id))!;
  const target = [from[1], spare];

  const producer = tide.producer({ acks: 'all' });
  await producer.send(
    'move',
    Array.from({ length: 500 }, (_, i) => ({ value: `m${i}` })),
  );

  // Bad plans are refused whole.
  await expect(
    admin.alterPartitionReassignments([{ topic: 'move', partition: 0, replicas: [target[0]] }]),
  ).rejects.toMatchObject({ code: 'INVALID_REPLICATION_FACTOR' });
  await expect(
    admin.alterPartitionReassignments([{ topic: 'move', partition: 0, replicas: [0, 99] }]),
  ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });

  const outcome = await admin.alterPartitionReassignments([
    { topic: 'move', partition: 0, replicas: target },
  ]);
  expect(outcome.accepted).toBe(1);
  // Writes continue during the move.
  const during = producer.send(
    'move',
    Array.from({ length: 500 }, (_, i) => ({ value: `n${i}` })),
  );
  await waitFor(async () => (await admin.listPartitionReassignments()).length === 0, {
    what: 'the move to finish',
    timeoutMs: 60_000,
  });
  await during;
  await producer.send(
    'move',
    Array.from({ length: 100 }, (_, i) => ({ value: `o${i}` })),
  );
  await producer.close();
  const after = await waitFor(
    async () => {
      const p = (await admin.metadata(['move'])).topics[0].partitions[0];
      return p.replicas.join() === target.join() ? p : undefined;
    },
    { what: 'metadata naming the target replicas', timeoutMs: 30_000 },
  );
  expect(target).toContain(after!.leader);
  const records = await readAll('move', 1, 1100);
  expect(new Set(records).size).toBe(1100);
});

test('decommission a broker under load, then stop it: no partition goes offline', async () => {
  const admin = tide.admin();
  await admin.createTopic('drain', { partitions: 4, replicationFactor: 2 });
  const victim = 2;
  const producer = tide.producer({ acks: 'all' });
  await producer.send(
    'drain',
    Array.from({ length: 400 }, (_, i) => ({ value: `d${i}`, partition: i % 4 })),
  );
  const first = await admin.decommissionBroker(victim);
  expect(first.decommissioning).toBe(true);
  const writes = producer.send(
    'drain',
    Array.from({ length: 400 }, (_, i) => ({ value: `e${i}`, partition: i % 4 })),
  );
  await waitFor(async () => (await admin.describeDecommission(victim)).remainingReplicas === 0, {
    what: `broker ${victim} emptied`,
    timeoutMs: 90_000,
  });
  await writes;
  // New partitions are not placed on it.
  const grown = await admin.createPartitions('drain', 6);
  for (const p of grown.partitions) expect(p.replicas).not.toContain(victim);

  await cluster.broker(victim).stop('SIGTERM');
  const meta = await admin.metadata(['drain', 'grow', 'move']);
  for (const t of meta.topics)
    for (const p of t.partitions) {
      expect(p.replicas).not.toContain(victim);
      expect(p.leader).toBeGreaterThanOrEqual(0);
    }
  await producer.send(
    'drain',
    Array.from({ length: 100 }, (_, i) => ({ value: `f${i}`, partition: i % 4 })),
  );
  await producer.close();
  const records = await readAll('drain', 4, 900);
  expect(new Set(records).size).toBe(900);
  expect((await admin.recommissionBroker(victim)).decommissioning).toBe(false);
});

test('the CLI: topics alter --partitions, partitions reassign, brokers status, cluster describe', async () => {
  const b = ['--bootstrap', cluster.bootstrap()[0]];
  await tide.admin().createTopic('cli-elastic', { partitions: 2, replicationFactor: 2 });
  const shrink = await runCli(['topics', 'alter', 'cli-elastic', '--partitions', '1', ...b]);
  expect(shrink.code).not.toBe(0);
  expect(shrink.stderr).toMatch(/can only grow/);
  const grow = await runCli(['topics', 'alter', 'cli-elastic', '--partitions', '4', ...b]);
  expect(grow.code).toBe(0);
  expect(grow.out).toMatch(/grew topic cli-elastic to 4 partitions/);

  const generated = await runCli([
    'partitions',
    'reassign',
    '--generate',
    '--topics',
    'cli-elastic',
    '--brokers',
    '0,1',
    ...b,
  ]);
  expect(generated.code).toBe(0);
  const plan = JSON.parse(generated.out) as { partitions: { replicas: number[] }[] };
  expect(plan.partitions).toHaveLength(4);
  for (const p of plan.partitions) expect([...p.replicas].sort()).toEqual([0, 1]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tide-plan-')), 'plan.json');
  fs.writeFileSync(file, generated.out);
  const started = await runCli(['partitions', 'reassign', '--plan', file, ...b]);
  expect(started.code).toBe(0);
  await waitFor(
    async () =>
      (await runCli(['partitions', 'reassign', '--verify', ...b])).out.includes('no moves in progress'),
    { what: 'the CLI plan to finish', timeoutMs: 60_000, intervalMs: 500 },
  );
  const status = await runCli(['brokers', 'status', '0', ...b]);
  expect(status.code).toBe(0);
  expect(status.out).toMatch(/broker 0 in service/);
  const described = await runCli(['cluster', 'describe', '--json', ...b]);
  expect(described.code).toBe(0);
  const json = JSON.parse(described.out) as { load: { id: number; replicas: number }[]; moves: unknown[] };
  expect(json.moves).toEqual([]);
  expect(json.load.find((l) => l.id === 0)!.replicas).toBeGreaterThan(0);
});
