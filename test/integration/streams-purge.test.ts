/**
 * Repartition purge against real processes (etcd, a controller, a broker, a group coordinator):
 * while a word count runs (`text` → `<app>-counts-repartition` → `counts`), the log start offset
 * of every partition of its repartition topic advances as the app commits, up to the high
 * watermark once everything is processed, and the counts stay exact.
 */
import { Tide, type Consumer, type PartitionStatus } from '../../client';
import { Serdes, type StreamsApp } from '../../streams';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';

jest.setTimeout(150_000);

const APP = 'purging';
const REPARTITION = `${APP}-counts-repartition`;
const WORDS = Array.from({ length: 30 }, (_, i) => `w${i}`);

let cluster: TestCluster;
let tide: Tide;
let app: StreamsApp | undefined;
let reader: Consumer;
const latest = new Map<string, number>();
const expected = new Map<string, number>();
let line = 0;

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 1, controllers: 1 });
  await cluster.startCoordinator('c1');
  tide = new Tide({ bootstrap: cluster.bootstrap() });
  await tide.admin().createTopic('text', { partitions: 3, replicationFactor: 1 });
  await tide.admin().createTopic('word-counts', { partitions: 3, replicationFactor: 1 });
  reader = tide.consumer({ autoOffsetReset: 'earliest' });
  reader.assign([0, 1, 2].map((partition) => ({ topic: 'word-counts', partition, offset: 0 })));
  void (async () => {
    for await (const r of reader)
      latest.set(Serdes.string.deserialize(r.key!), Serdes.number.deserialize(r.value!));
  })();
});

afterAll(async () => {
  await app?.close();
  await reader?.close();
  await tide?.close();
  await cluster?.stop();
});

async function produce(n: number): Promise<void> {
  const producer = tide.producer();
  const records = [];
  for (let i = 0; i < n; i++, line++) {
    const words = Array.from({ length: 4 }, (_, j) => WORDS[(line * 7 + j * 3) % WORDS.length]);
    for (const w of words) expected.set(w, (expected.get(w) ?? 0) + 1);
    records.push({ key: `line-${line}`, value: words.join(' ') });
  }
  await producer.send('text', records);
  await producer.close();
}

async function repartitionStatus(): Promise<PartitionStatus[]> {
  return (await tide.admin().describeTopic(REPARTITION)).status.sort((a, b) => a.partition - b.partition);
}

test('the repartition topic is purged up to the committed offsets while the app runs', async () => {
  const b = tide.streams({ applicationId: APP });
  b.stream('text', { key: Serdes.string, value: Serdes.string })
    .flatMapValues((text) => text.split(' '))
    .selectKey((_k, word) => word)
    .groupByKey({ key: Serdes.string, value: Serdes.string })
    .count({ name: 'counts' })
    .toStream()
    .to('word-counts', { value: Serdes.number });
  app = b.app(b.build(), { commitIntervalMs: 200, repartitionPurgeIntervalMs: 0, replicationFactor: 1 });
  await app.start();

  await produce(300);
  // While records flow, every partition's log start moves off 0 (the purge follows the commits).
  await waitFor(async () => (await repartitionStatus()).every((s) => s.logStartOffset > 0), {
    timeoutMs: 60_000,
    what: 'every repartition partition purged once',
  });
  await produce(300);
  await waitFor(() => [...expected].every(([w, n]) => latest.get(w) === n), {
    timeoutMs: 60_000,
    what: 'exact counts',
  });
  // Everything processed and committed: nothing is left below the high watermark.
  const done = await waitFor(
    async () => {
      const status = await repartitionStatus();
      return status.every((s) => s.logStartOffset === s.highWatermark) ? status : undefined;
    },
    { timeoutMs: 60_000, what: 'the repartition topic purged to its end' },
  );
  expect(done!.length).toBe(3);
  expect(done!.reduce((n, s) => n + s.highWatermark, 0)).toBe(600 * 4);
  expect(app.error()).toBeUndefined();
});
