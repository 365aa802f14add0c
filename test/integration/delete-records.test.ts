/**
 * DeleteRecords on real processes (etcd, a controller, two brokers; a topic with two replicas):
 * the leader's log start moves, reads below it fail with OFFSET_OUT_OF_RANGE, the follower's log
 * start follows (its checkpoint file says so and its first segments are gone), an offset above the
 * high watermark is refused, and the log start survives SIGKILL and restart of either broker,
 * each in turn leading.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Tide, TideError } from '../../client';
import { decodeOffsetCheckpoint } from '../../services/broker/log/checkpoint';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';

jest.setTimeout(180_000);

const TOPIC = 'purged';
const tp = { topic: TOPIC, partition: 0 };
let cluster: TestCluster;
let tide: Tide;

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 2, controllers: 1 });
  tide = new Tide({ bootstrap: cluster.bootstrap() });
});

afterAll(async () => {
  await tide?.close();
  await cluster?.stop();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof TideError)) throw new Error(`expected a TideError, got ${String(err)}`);
  return err.code;
}

async function partitionState(): Promise<{ leader: number; isr: number[] }> {
  const meta = await tide.admin().metadata([TOPIC]);
  const p = meta.topics[0].partitions[0];
  return { leader: p.leader, isr: p.isr };
}

/** The log start offset checkpoint in broker `id`'s folder of the partition. */
function checkpointedLogStart(id: number): number | string {
  const file = path.join(cluster.brokerDataDir(id), `${TOPIC}-0`, 'log-start-offset');
  return fs.existsSync(file) ? decodeOffsetCheckpoint(fs.readFileSync(file)) : 'missing';
}

function segmentBases(id: number): number[] {
  return fs
    .readdirSync(path.join(cluster.brokerDataDir(id), `${TOPIC}-0`))
    .filter((f) => f.endsWith('.log'))
    .map((f) => Number(f.slice(0, -4)))
    .sort((a, b) => a - b);
}

async function earliest(): Promise<number> {
  const consumer = tide.consumer();
  try {
    return (await consumer.listOffset(tp, 'earliest')).offset;
  } finally {
    await consumer.close();
  }
}

async function fetchCode(offset: number): Promise<string> {
  const consumer = tide.consumer();
  try {
    return await codeOf(consumer.fetch(tp, offset));
  } finally {
    await consumer.close();
  }
}

/** SIGKILLs broker `id` and waits until the other one leads with the log start it followed. */
async function killLeader(id: number): Promise<number> {
  await cluster.broker(id).stop('SIGKILL');
  const state = await waitFor(
    async () => {
      const now = await partitionState();
      return now.leader >= 0 && now.leader !== id ? now : undefined;
    },
    { timeoutMs: 30_000, what: `a new leader after broker ${id} died` },
  );
  return state!.leader;
}

test('records below the offset are gone on both replicas, and stay gone across SIGKILL and restart', async () => {
  await tide.admin().createTopic(TOPIC, {
    partitions: 1,
    replicationFactor: 2,
    configs: { 'segment.bytes': '1024', 'min.insync.replicas': '2' },
  });
  const producer = tide.producer({ acks: 'all' });
  for (let batch = 0; batch < 40; batch++) {
    const records = Array.from({ length: 5 }, (_, i) => ({
      value: `record-${batch * 5 + i}-`.padEnd(60, 'x'),
    }));
    await producer.send(
      TOPIC,
      records.map((r) => ({ ...r, partition: 0 })),
    );
  }
  await producer.close();
  const { leader } = (await waitFor(async () => {
    const state = await partitionState();
    return state.isr.length === 2 ? state : undefined;
  }))!;
  const follower = leader === 0 ? 1 : 0;
  expect(segmentBases(leader).length).toBeGreaterThan(5);

  expect(await tide.admin().deleteRecords([{ ...tp, offset: 123 }])).toEqual([{ ...tp, lowWatermark: 123 }]);
  expect(await earliest()).toBe(123);
  expect(await fetchCode(50)).toBe('OFFSET_OUT_OF_RANGE');
  expect(await fetchCode(122)).toBe('OFFSET_OUT_OF_RANGE');
  // The low watermark counts the follower: by the answer, it has moved its log start too.
  expect(checkpointedLogStart(follower)).toBe(123);
  for (const id of [leader, follower]) {
    expect(segmentBases(id)[0]).toBeGreaterThan(0);
    expect(segmentBases(id)[0]).toBeLessThanOrEqual(123);
  }
  expect(await codeOf(tide.admin().deleteRecords([{ ...tp, offset: 201 }]))).toBe('OFFSET_OUT_OF_RANGE');

  // The follower takes over with the log start it followed.
  const second = await killLeader(leader);
  expect(second).toBe(follower);
  expect(await earliest()).toBe(123);
  expect(await fetchCode(100)).toBe('OFFSET_OUT_OF_RANGE');

  // The killed broker restarts from its files (no clean shutdown), catches up, and leads again.
  await cluster.startBroker(leader);
  await waitFor(async () => (await partitionState()).isr.length === 2, {
    timeoutMs: 30_000,
    what: 'the restarted broker back in the ISR',
  });
  expect(checkpointedLogStart(leader)).toBe(123);
  expect(await killLeader(follower)).toBe(leader);
  expect(await earliest()).toBe(123);
  expect(await fetchCode(0)).toBe('OFFSET_OUT_OF_RANGE');
  const consumer = tide.consumer();
  try {
    const fetched = await consumer.fetch(tp, 123);
    expect(fetched.logStartOffset).toBe(123);
    expect(fetched.records.some((r) => r.offset === 123)).toBe(true);
  } finally {
    await consumer.close();
  }
  await cluster.startBroker(follower);
});
