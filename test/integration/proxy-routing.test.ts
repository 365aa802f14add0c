/**
 * One endpoint is enough: a client that talks to exactly one broker (as through one
 * `kubectl port-forward`) produces to, consumes from and administers partitions led by other
 * brokers, because that broker forwards its requests (proxy routing). Real etcd, controller and
 * broker processes.
 */
import { Tide } from '../../client';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';

jest.setTimeout(120_000);

let cluster: TestCluster;
let tide: Tide;

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 3, controllers: 1 });
  tide = new Tide({ bootstrap: [cluster.broker(0).address], routing: 'bootstrap' });
});

afterAll(async () => {
  await tide?.close();
  await cluster?.stop();
});

test('produce, consume and admin on partitions led elsewhere, through one broker', async () => {
  await tide.admin().createTopic('spread', { partitions: 6, replicationFactor: 1 });
  const meta = await tide.admin().metadata(['spread']);
  const leaders = new Set(meta.topics[0].partitions.map((p) => p.leader));
  expect(leaders.size).toBe(3); // partitions really are led by all three brokers

  const producer = tide.producer();
  const sent = await producer.send(
    'spread',
    Array.from({ length: 600 }, (_, i) => ({ value: `v${i}`, partition: i % 6 })),
  );
  await producer.close();
  expect(sent.count).toBe(600);

  const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  consumer.assign(Array.from({ length: 6 }, (_, partition) => ({ topic: 'spread', partition })));
  await consumer.seekToBeginning();
  const seen = new Set<string>();
  await waitFor(
    async () => {
      for await (const batch of consumer.batches()) {
        for (const r of batch.records) seen.add(r.value!.toString());
        if (seen.size >= 600) break;
      }
      return seen.size >= 600;
    },
    { what: 'all records back', timeoutMs: 60_000 },
  );
  await consumer.close();
  expect(seen.size).toBe(600);

  const offsets = tide.consumer();
  const end = await offsets.listOffset({ topic: 'spread', partition: 5 }, 'latest');
  expect(end.offset).toBe(100);
  // DeleteRecords is served by each partition's leader: forwarded there too.
  const deleted = await tide
    .admin()
    .deleteRecords(Array.from({ length: 6 }, (_, partition) => ({ topic: 'spread', partition, offset: 40 })));
  expect(deleted.map((d) => d.lowWatermark)).toEqual([40, 40, 40, 40, 40, 40]);
  expect((await offsets.listOffset({ topic: 'spread', partition: 3 }, 'earliest')).offset).toBe(40);
  await offsets.close();

  // Only the one broker was ever dialled.
  expect(tide.cluster.pool.addresses()).toEqual([cluster.broker(0).address]);
});
