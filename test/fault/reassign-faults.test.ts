/**
 * Replica moves under faults, on real processes (4 brokers, 2 controllers, real etcd): a topic on
 * brokers {0,1,2} moves to {1,2,3} while a producer writes with acks=all. SIGKILL of the active
 * controller mid-move (the standby resumes the move from etcd), and separately SIGKILL of the
 * target broker mid-move (the move waits, and completes once it is back). Zero failed acks=all
 * writes; every acknowledged record is read back afterwards.
 */
import { Tide } from '../../client';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';

jest.setTimeout(300_000);

let cluster: TestCluster;
let tide: Tide;

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 3, controllers: 2, leaseTtlMs: 2_000 });
  tide = new Tide({ bootstrap: cluster.bootstrap() });
});

afterAll(async () => {
  await tide?.close();
  await cluster?.stop();
});

interface LoadResult {
  acked: string[];
  failed: unknown[];
}

/** Writes acks=all batches until stopped; returns every acknowledged value and the failures. */
function produceSteadily(topic: string): { stop: () => Promise<LoadResult> } {
  const producer = tide.producer({ acks: 'all' });
  const acked: string[] = [];
  const failed: unknown[] = [];
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const values = Array.from({ length: 20 }, (_, i) => `${topic}-${n}-${i}`);
      try {
        await producer.send(
          topic,
          values.map((value, i) => ({ value, partition: i % 2 })),
        );
        acked.push(...values);
      } catch (err) {
        failed.push(err);
        // A send that fails at once must not spin: the loop would starve the timers that stop it
        // (a CI run's worker ran out of heap here: a failed step had left the loop running, and
        // afterAll's tide.close() closed its producer, whose sends then all failed at once).
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      await producer.close();
      return { acked, failed };
    },
  };
}

/**
 * Runs `steps` while a steady acks=all load writes `topic`, and answers what the load wrote. The
 * load stops however the steps end: one that fails must not leave it writing into later tests.
 */
async function underLoad(topic: string, steps: () => Promise<void>): Promise<LoadResult> {
  const load = produceSteadily(topic);
  let result: LoadResult | undefined;
  try {
    await steps();
  } finally {
    result = await load.stop();
  }
  return result;
}

async function readAll(topic: string, expected: Set<string>): Promise<Set<string>> {
  const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  consumer.assign([0, 1].map((partition) => ({ topic, partition })));
  await consumer.seekToBeginning();
  const seen = new Set<string>();
  await waitFor(
    async () => {
      for await (const batch of consumer.batches()) {
        for (const r of batch.records) seen.add(r.value!.toString());
        if ([...expected].every((v) => seen.has(v))) break;
      }
      return [...expected].every((v) => seen.has(v));
    },
    { what: `every acknowledged record of ${topic}`, timeoutMs: 90_000 },
  );
  await consumer.close();
  return seen;
}

async function moveToFinish(topic: string): Promise<void> {
  await waitFor(
    async () => {
      const moves = await tide
        .admin()
        .listPartitionReassignments([topic])
        .catch(() => undefined);
      if (moves === undefined || moves.length > 0) return false;
      const meta = await tide.admin().metadata([topic]);
      return meta.topics[0].partitions.every((p) => p.replicas.join() === '1,2,3' && p.isr.length === 3);
    },
    { what: `the move of ${topic} to finish`, timeoutMs: 120_000, intervalMs: 200 },
  );
}

const plan = (topic: string) => [0, 1].map((partition) => ({ topic, partition, replicas: [1, 2, 3] }));

test('setup: topics on brokers 0,1,2, then broker 3 joins', async () => {
  for (const topic of ['mv-controller', 'mv-target'])
    await tide.admin().createTopic(topic, {
      partitions: 2,
      replicationFactor: 3,
      configs: { 'min.insync.replicas': '2' },
    });
  await cluster.startBroker(3);
});

test('SIGKILL the active controller mid-move: the standby resumes it, no acks=all write fails', async () => {
  let killed: number | undefined;
  try {
    const { acked, failed } = await underLoad('mv-controller', async () => {
      await new Promise((r) => setTimeout(r, 500));
      const active = (await tide.admin().describeCluster()).controllerId;
      await tide.admin().alterPartitionReassignments(plan('mv-controller'));
      killed = active;
      await cluster.controllers.get(active)!.stop('SIGKILL');
      await moveToFinish('mv-controller');
      await new Promise((r) => setTimeout(r, 500));
    });
    expect(failed).toEqual([]);
    expect(acked.length).toBeGreaterThan(0);
    await readAll('mv-controller', new Set(acked));
  } finally {
    // Back for the next test, even when this one failed.
    if (killed !== undefined) await cluster.startController(killed);
  }
});

test('SIGKILL the target broker mid-move: the move waits and completes after it returns', async () => {
  const { acked, failed } = await underLoad('mv-target', async () => {
    await new Promise((r) => setTimeout(r, 500));
    // Paused before the move starts, so it cannot catch up and finish before the kill lands
    // (a small topic's move can complete within milliseconds).
    const target = cluster.broker(3);
    target.child.kill('SIGSTOP');
    await tide.admin().alterPartitionReassignments(plan('mv-target'));
    await target.stop('SIGKILL');
    await new Promise((r) => setTimeout(r, 3_000));
    // Still safe while it is down: the move has not dropped the old replicas.
    const meta = await tide.admin().metadata(['mv-target']);
    for (const p of meta.topics[0].partitions) expect(p.replicas).toContain(0);
    await cluster.startBroker(3);
    await moveToFinish('mv-target');
  });
  expect(failed).toEqual([]);
  await readAll('mv-target', new Set(acked));
});
