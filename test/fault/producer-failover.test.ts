/**
 * Default producers through leader failovers (issue 12): no producer option is set, so these
 * run with the delivery timeout (120 s) and the re-send on leader moves.
 *  - SIGKILL of a leader with an 8 s lease: the failover takes longer than the old retry budget
 *    (10 tries, about 6.5 s), which failed sends; now every send succeeds exactly once.
 *  - SIGSTOP of a leader past its lease: once the metadata names the new leader, the batches in
 *    flight to the paused one are re-sent there at once; acks resume while the old leader is still
 *    stopped (before the 30 s request timeout could have released them).
 */
import { Tide } from '../../client';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';
import { Workload } from '../harness/workload';
import { bounded, createReplicatedTopic, expectCleanHistory, partitionState } from './helpers';

jest.setTimeout(180_000);

const PARTITIONS = 2;
let cluster: TestCluster | undefined;
const clients: Tide[] = [];
let workload: Workload | undefined;

afterEach(async () => {
  await bounded(workload?.stop());
  for (const c of clients.splice(0)) await bounded(c.close());
  await cluster?.stop();
  cluster = undefined;
});

/** A client whose metadata watch runs through a broker other than `avoid`. */
function clientAvoiding(avoid: number): Tide {
  const addresses = [...cluster!.brokers.entries()].sort(
    ([a], [b]) => Number(a === avoid) - Number(b === avoid),
  );
  const tide = new Tide({ bootstrap: addresses.map(([, b]) => b.address) });
  clients.push(tide);
  return tide;
}

async function setup(leaseTtlMs: number, topic: string): Promise<{ tide: Tide; leader: number }> {
  cluster = await TestCluster.start({ brokers: 3, leaseTtlMs, replicaLagTimeMaxMs: 30_000 });
  const admin = new Tide({ bootstrap: cluster.bootstrap() });
  clients.push(admin);
  await createReplicatedTopic(cluster, admin, topic, PARTITIONS);
  const leader = (await partitionState(cluster, topic, 0)).leader;
  const tide = clientAvoiding(leader);
  // Default producer settings: no retry, timeout or delivery options.
  workload = new Workload(tide, topic, PARTITIONS, 'w1', 20, { retry: undefined });
  workload.start();
  await waitFor(() => workload!.count > 200, { what: 'first acks', timeoutMs: 30_000 });
  return { tide, leader };
}

test('SIGKILL of a leader with an 8 s lease: a default producer loses no send', async () => {
  const { tide, leader } = await setup(8_000, 'kill-default');
  await cluster!.broker(leader).stop('SIGKILL');
  await waitFor(
    async () => {
      const s = await partitionState(cluster!, 'kill-default', 0);
      return s.leader >= 0 && s.leader !== leader;
    },
    { what: 'a new leader', timeoutMs: 40_000 },
  );
  const count = workload!.count;
  await waitFor(() => workload!.count > count + 200, { what: 'acks after the failover', timeoutMs: 40_000 });
  await workload!.stop();
  expect(Object.fromEntries(workload!.errors)).toEqual({});
  await expectCleanHistory(tide, 'kill-default', PARTITIONS, [workload!]);
});

test('SIGSTOP of a leader past its lease: in-flight batches move to the new leader at once', async () => {
  const { tide, leader } = await setup(3_000, 'pause-default');
  const pid = cluster!.broker(leader).child.pid!;
  process.kill(pid, 'SIGSTOP');
  try {
    const electedAt = (await waitFor(
      async () => {
        const s = await partitionState(cluster!, 'pause-default', 0);
        return s.leader >= 0 && s.leader !== leader ? Date.now() : undefined;
      },
      { what: 'a new leader', timeoutMs: 30_000 },
    ))!;
    const movedAcks = () => workload!.acked.filter((a) => a.partition === 0 && a.atMs! > electedAt).length;
    // The old leader stays stopped: only the re-send gets these acknowledged before the 30 s
    // request timeout would have failed the batches stuck on it.
    await waitFor(() => movedAcks() > 100, { what: 'acks from the new leader', timeoutMs: 20_000 });
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  await workload!.stop();
  expect(Object.fromEntries(workload!.errors)).toEqual({});
  await expectCleanHistory(tide, 'pause-default', PARTITIONS, [workload!]);
});
